/**
 * The LoCoMo subset in ../shared/bench-data/locomo (see its README): dialogue turns and the
 * questions asked about them. Read from there, never copied into the repository (CC BY-NC 4.0).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

export interface Turn {
  readonly conv_id: string
  readonly dia_id: string
  readonly session: number
  readonly speaker: string
  readonly text: string
  readonly session_date_iso: string
  readonly blip_caption?: string
}

export interface Question {
  readonly conv_id: string
  readonly qa_index: number
  readonly question: string
  /** Absent for category 5 (adversarial). */
  readonly answer?: string | number
  readonly category: 1 | 2 | 3 | 4 | 5
  readonly category_name: string
  readonly evidence: ReadonlyArray<string>
}

export const categoryNames: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial"
}

/** `UMO_LOCOMO_DIR`, else ../shared/bench-data/locomo beside the repository. */
export const dataDir = (root: string) =>
  process.env.UMO_LOCOMO_DIR ?? join(root, "..", "shared", "bench-data", "locomo")

const jsonl = <A>(file: string): Array<A> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as A)

export const load = (dir: string) => ({
  turns: jsonl<Turn>(join(dir, "turns.jsonl")),
  questions: jsonl<Question>(join(dir, "qa.jsonl"))
})

/** The memory a turn becomes, as the dataset's README defines it. */
export const memoryText = (turn: Turn) =>
  `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""}`

/** Session times carry no zone; they are read as UTC. */
export const turnTime = (turn: Turn) => `${turn.session_date_iso}Z`
