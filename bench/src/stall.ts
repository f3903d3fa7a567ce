/**
 * Nothing blocking the main thread: the search index of one account holding N memories (synthetic
 * rows, one 768-dimension chunk each: Part.ts's `stall`), in a process of its own run as
 * `npm start` runs the server, through what a server does beside its requests — the load a few
 * hundred rows at a time, the HNSW graph built in the graph thread, searches every 10 ms alone and
 * while a snapshot is written, and a restart's load from that snapshot. For each phase, the event
 * loop's delay (`monitorEventLoopDelay`): the longest any timer or request would have waited.
 *
 *   npm run bench:stall                            # 100,000 memories
 *   npm run bench:stall -- --memories 1000000      # a million (about 40 minutes here; 12 GB of heap)
 *   npm run bench:stall -- --quick                 # 20,000
 *   npm run bench:stall -- --memories 1000000 --figures FILE   # publish the part's last line, run by hand
 *
 * Results: bench/results/stall-N.{json,svg} and the `stall-N` section of bench/README.md.
 */
import { readFileSync, realpathSync } from "node:fs"
import { join } from "node:path"
import type { PartFigures, StallPhase } from "./memory/Part.js"
import { runPart } from "./memory/Parts.js"
import { barChart } from "./support/Chart.js"
import { argument, progress, quick, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"

const memories = Number(argument("memories") ?? (quick ? 20_000 : 100_000))
const figuresFile = argument("figures")
progress(`stall: ${memories.toLocaleString("en")} memories, in a process of their own`)
// A million memories take about 40 minutes: the part may be run by hand (as `runPart` runs it) and
// its last line published here.
const figures: PartFigures =
  figuresFile !== undefined
    ? (JSON.parse(readFileSync(figuresFile, "utf8").trim().split("\n").at(-1)!) as PartFigures)
    : runPart(root, {
        part: "stall",
        root,
        turns: realpathSync(join(root, "..", "shared", "bench-data", "locomo", "turns.jsonl")),
        memories,
        settleSeconds: 1
      })
const detail = figures.detail as {
  readonly phases: Record<string, StallPhase>
  readonly graph_keys: number
  readonly kept: number
  readonly longest_page_ms: number
}
const phases = Object.entries(detail.phases)
const results = {
  quick,
  machine: machine(),
  memories,
  target_ms: 100,
  phases: detail.phases,
  graph_keys: detail.graph_keys,
  kept_from_snapshot: detail.kept,
  longest_rows_add_ms: detail.longest_page_ms,
  rss_mb: Math.round(figures.rss_kb / 1024)
}
const cell = (x: number | undefined) => (x === undefined ? "" : String(x))
const table = `${memories.toLocaleString("en")} memories (synthetic rows, one chunk each), the index alone in a process run as \`npm start\` runs the server. Target: no event-loop delay over 100 ms.

| phase | seconds | event-loop delay max / p99 ms | searches | left to the database | search p95 / max ms |
|---|---|---|---|---|---|
${phases
  .map(
    ([name, p]) =>
      `| ${name} | ${p.seconds} | ${p.delay_max_ms} / ${p.delay_p99_ms} | ${cell(p.searches)} | ${cell(p.left_to_database)} | ${p.search_p95_ms === undefined ? "" : `${p.search_p95_ms} / ${p.search_max_ms}`} |`
  )
  .join("\n")}

The longest 250 rows took to add during a load: ${detail.longest_page_ms} ms. Graph keys kept from the snapshot at the restart: ${detail.kept.toLocaleString("en")} of ${detail.graph_keys.toLocaleString("en")}. Resident: ${results.rss_mb.toLocaleString("en")} MB at the end.`
const svg = barChart({
  title: `Longest event-loop delay by phase, ${memories.toLocaleString("en")} memories (ms)`,
  yLabel: "ms",
  categories: phases.map(([name]) => name),
  series: [
    { name: "max", values: phases.map(([, p]) => p.delay_max_ms) },
    { name: "p99", values: phases.map(([, p]) => p.delay_p99_ms) }
  ],
  reference: { value: 100, label: "target 100 ms" }
})
process.stderr.write("\n")
publishResults(root, `stall-${memories}`, results, svg, table)
