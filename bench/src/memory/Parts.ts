/**
 * The parts of the server measured alone (Part.ts), each in a fresh Node process, over the
 * `baseline` part (the same script doing nothing) and beside a bare `node -e`.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
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

const descriptions: Record<string, string> = {
  baseline: "this script in a bare Node, doing nothing (the baseline)",
  pglite: "PGlite with pgvector opened on its thread (PgliteWorker), one query",
  "pglite reopened": "the same, on the data directory the line above made (a restart)",
  embedder: "embedding model (all-mpnet-base-v2 int8) loaded on its thread, one short text",
  "embedder-32-single":
    "embedding model, 32 texts of 1,000 characters one per call (as the server runs int8)",
  "embedder-32-batch": "embedding model, the same 32 texts in one call (the batch's activations at once)",
  reranker: "cross-encoder (ms-marco-MiniLM-L-12-v2 int8) on its thread, 20 passages scored",
  judge: "update judge (the mpnet student, int8) on its thread, 3 pairs scored (UMO_UPDATE_JUDGE=learned)",
  nlp: "language engines and fact patterns (warmUp) on the main thread",
  index: "in-process search index (AccountIndex), HNSW graph built, one search"
}

export const runPart = (root: string, request: PartRequest): PartFigures => {
  const child = spawnSync(
    process.execPath,
    // As scripts/start.sh runs the server: young generations of 8 MB semi-spaces.
    [
      "--expose-gc",
      "--max-semi-space-size=8",
      // A million memories' entries take about 2.6 GB of heap, near Node's default limit here
      // (4.1 GB): a server holding them is given more (NODE_OPTIONS), and so is the part.
      ...((request.memories ?? 0) >= 1_000_000 ? ["--max-old-space-size=12288"] : []),
      join(root, "bench", "src", "memory", "Part.ts"),
      JSON.stringify(request)
    ],
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

/**
 * Every part once, PGlite on a new data directory and again on it, the index at each of
 * `indexSizes` and empty (what loading its code costs, which the others' own memory is over).
 */
export const measureParts = (
  root: string,
  turns: string,
  indexSizes: ReadonlyArray<number>,
  settleSeconds: number
) => {
  const pgliteDir = join(mkdtempSync(join(tmpdir(), "umo-bench-memory-pglite-")), "pglite")
  const wanted: Array<{ part: PartName; label: string; memories?: number; dataDir?: string }> = [
    { part: "baseline", label: "baseline" },
    { part: "pglite", label: "pglite", dataDir: pgliteDir },
    { part: "pglite", label: "pglite reopened", dataDir: pgliteDir },
    { part: "embedder", label: "embedder" },
    { part: "embedder-32-single", label: "embedder-32-single" },
    { part: "embedder-32-batch", label: "embedder-32-batch" },
    { part: "reranker", label: "reranker" },
    { part: "judge", label: "judge" },
    { part: "nlp", label: "nlp" },
    ...(indexSizes.length === 0 ? [] : [0, ...indexSizes]).map((memories) => ({
      part: "index" as const,
      label: `index ${memories.toLocaleString("en")}`,
      memories
    }))
  ]
  const rows: Array<PartRow> = []
  let baseline: PartFigures | undefined
  try {
    for (const { part, label, memories, dataDir } of wanted) {
      progress(`memory: part ${label}`)
      const figures = runPart(root, {
        part,
        root,
        turns,
        settleSeconds,
        ...(memories === undefined ? {} : { memories }),
        ...(dataDir === undefined ? {} : { dataDir })
      })
      baseline ??= figures
      rows.push({
        part: label,
        description: descriptions[label] ?? descriptions[part]!,
        ...(memories === undefined ? {} : { memories }),
        figures,
        over_baseline_mb: {
          rss: mb(figures.rss_kb - baseline.rss_kb),
          peak: mb(figures.peak_rss_kb - baseline.peak_rss_kb),
          after_gc: mb(figures.rss_after_gc_kb - baseline.rss_after_gc_kb)
        }
      })
    }
  } finally {
    rmSync(join(pgliteDir, ".."), { recursive: true, force: true })
  }
  process.stderr.write("\n")
  return rows
}
