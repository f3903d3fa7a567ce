/**
 * The parts of the server measured alone (Part.ts), each in a fresh Node process, over the
 * `baseline` part (the same script doing nothing) and beside a bare `node -e`.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { progress } from "../support/Cli.js"
import type { PartFigures, PartName, PartRequest } from "./Part.js"
import { mb } from "./ProcessTree.js"

export interface PartRow {
  readonly part: string
  readonly description: string
  /** Memories in the index (`index` parts). */
  readonly memories?: number
  readonly figures: PartFigures
  /** Its RSS, peak and RSS after a collection over the baseline's, in MB. */
  readonly over_baseline_mb: { readonly rss: number; readonly peak: number; readonly after_gc: number }
}

const descriptions: Record<PartName, string> = {
  baseline: "this script in a bare Node, doing nothing (the baseline)",
  pglite: "PGlite with pgvector opened on its thread (PgliteWorker), one query",
  embedder: "embedding model (all-mpnet-base-v2 int8) loaded on its thread, one short text",
  "embedder-32-single":
    "embedding model, 32 texts of 1,000 characters one per call (as the server runs int8)",
  "embedder-32-batch": "embedding model, the same 32 texts in one call (the batch's activations at once)",
  reranker: "cross-encoder (ms-marco-MiniLM-L-12-v2 int8) on its thread, 20 passages scored",
  nlp: "language engines and fact patterns (warmUp) on the main thread",
  index: "in-process search index (AccountIndex), HNSW graph built, one search"
}

const run = (root: string, request: PartRequest): PartFigures => {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", join(root, "bench", "src", "memory", "Part.ts"), JSON.stringify(request)],
    {
      cwd: root,
      encoding: "utf8",
      timeout: 3 * 3_600_000,
      maxBuffer: 2 ** 26,
      // As scripts/start.sh runs the server: glibc gives large freed blocks back to the system.
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: "131072" }
    }
  )
  const last = child.stdout.trim().split("\n").at(-1) ?? ""
  if (child.status !== 0 || !last.startsWith("{"))
    throw new Error(`part ${request.part} failed (exit ${child.status}):\n${child.stderr.slice(-2000)}`)
  return JSON.parse(last) as PartFigures
}

/** VmRSS of `node -e` idle for 3 s: Node alone, for scale. */
export const bareNodeKb = () => {
  const child = spawnSync(
    process.execPath,
    [
      "-e",
      `setTimeout(() => console.log(/VmRSS:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]), 3000)`
    ],
    { encoding: "utf8" }
  )
  return Number(child.stdout.trim())
}

/** Every part once, the index at each of `indexSizes`; the baseline first. */
export const measureParts = (root: string, turns: string, indexSizes: ReadonlyArray<number>) => {
  const wanted: Array<{ part: PartName; memories?: number }> = [
    { part: "baseline" },
    { part: "pglite" },
    { part: "embedder" },
    { part: "embedder-32-single" },
    { part: "embedder-32-batch" },
    { part: "reranker" },
    { part: "nlp" },
    ...indexSizes.map((memories) => ({ part: "index" as const, memories }))
  ]
  const rows: Array<PartRow> = []
  let baseline: PartFigures | undefined
  for (const { part, memories } of wanted) {
    progress(
      `memory: part ${part}${memories === undefined ? "" : ` (${memories.toLocaleString("en")} memories)`}`
    )
    const figures = run(root, { part, root, turns, ...(memories === undefined ? {} : { memories }) })
    baseline ??= figures
    rows.push({
      part: memories === undefined ? part : `${part} ${memories.toLocaleString("en")}`,
      description: descriptions[part],
      ...(memories === undefined ? {} : { memories }),
      figures,
      over_baseline_mb: {
        rss: mb(figures.rss_kb - baseline.rss_kb),
        peak: mb(figures.peak_rss_kb - baseline.peak_rss_kb),
        after_gc: mb(figures.rss_after_gc_kb - baseline.rss_after_gc_kb)
      }
    })
  }
  process.stderr.write("\n")
  return rows
}
