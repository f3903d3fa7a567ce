/** The tables and the chart of `bench:memory`, from its rows (this run's or a saved file's). */
import { barChart } from "../support/Chart.js"
import type { PartRow } from "./Parts.js"
import { mb, type ProcessFacts } from "./ProcessTree.js"
import type { StageRow } from "./Stages.js"

const thousands = (x: number) => x.toLocaleString("en")

/** A process of the tree by what it runs: npm, its shell, the server. */
const role = (p: ProcessFacts) =>
  p.command.includes("server/dist/main.js") ? "server" : p.command.includes("npm") ? "npm" : "shell"

const wrappers = (r: StageRow) =>
  r.processes
    .filter((p) => role(p) !== "server")
    .map((p) => `${role(p)} ${mb(p.rss_kb)}`)
    .join(", ")

/** What the server ran: the dist's commit, "+ edits" when the sources differed from it. */
const built = (r: StageRow) =>
  `${r.source.commit}${r.source.edited ? " + edits" : ""}${r.source.dist_rebuilt_since ? ", dist rebuilt by others meanwhile" : ""}`

const serving = (r: StageRow) => (r.index_serving_ms === null ? "not loaded" : thousands(r.index_serving_ms))

export const stagesTable = (stages: ReadonlyArray<StageRow>) => [
  "| stage | database | memories | whole tree RSS MB | right after a load through the API MB | server node RSS MB (anon / file) | server peak MB | npm and shell MB | threads: server / tree | index's own estimate MB (`/health` `held_mb`) | tree RSS at index serving MB | start-up ms: healthy / index serving | account filled by | measured (built from) |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ...stages.map(
    (r) =>
      `| ${r.stage} | ${r.database} | ${thousands(r.memories)} | **${r.tree_rss_mb}** | ${r.tree_rss_right_after_load_mb ?? "–"} | ${r.server.rss_mb} (${r.server.rss_anon_mb} / ${r.server.rss_file_mb}) | ${r.server.peak_rss_mb} | ${wrappers(r)} | ${r.server.threads} / ${r.tree_threads} | ${r.health_index?.held_mb ?? "–"} | ${r.tree_rss_at_index_serving_mb} | ${thousands(r.healthy_ms)} / ${serving(r)} | ${r.loaded_by}${r.load_seconds === null ? "" : ` (${thousands(r.load_seconds)} s)`} | ${r.measured} (${built(r)}) |`
  )
]

export const partsTable = (parts: ReadonlyArray<PartRow>, bareNodeMb: number, settleSeconds: number) => {
  const baseline = parts.find((p) => p.part === "baseline")
  return [
    `Each part alone in a fresh Node process (\`bench/src/memory/Part.ts\`, built packages, \`MALLOC_MMAP_THRESHOLD_\` and 8 MB semi-spaces as \`npm start\` sets them), measured ${settleSeconds} s after its work; over the baseline: the same script doing nothing, ${baseline ? mb(baseline.figures.rss_kb) : "–"} MB (a bare \`node -e\`: ${bareNodeMb} MB; the rest is Node's type stripping of the script). "After GC": after a full collection of the main thread's heap.`,
    "",
    "| part | RSS over baseline MB | peak over baseline MB | after GC over baseline MB | RSS MB (anon / file) | threads | seconds | index's own estimate MB |",
    "|---|---|---|---|---|---|---|---|",
    ...parts
      .filter((p) => p.part !== "baseline")
      .map(
        (p) =>
          `| ${p.part}: ${p.description} | **${p.over_baseline_mb.rss}** | ${p.over_baseline_mb.peak} | ${p.over_baseline_mb.after_gc} | ${mb(p.figures.rss_kb)} (${mb(p.figures.rss_anon_kb)} / ${mb(p.figures.rss_file_kb)}) | ${p.figures.threads} | ${p.figures.seconds} | ${p.figures.estimate_kb === undefined ? "" : mb(p.figures.estimate_kb)} |`
      ),
    ...indexEstimates(parts)
  ]
}

/**
 * The index's estimate of itself beside what it measured: each index part's RSS over the empty
 * index's (the same process with the index's code loaded and nothing in it).
 */
const indexEstimates = (parts: ReadonlyArray<PartRow>) => {
  const empty = parts.find((p) => p.part === "index 0")
  const held = parts.filter((p) => p.part.startsWith("index ") && (p.memories ?? 0) > 0)
  if (empty === undefined || held.length === 0) return []
  return [
    "",
    `The index's own memory, over the empty index (${mb(empty.figures.rss_kb - (parts.find((p) => p.part === "baseline")?.figures.rss_kb ?? 0))} MB over the baseline: its code and libraries loaded), against its estimate: ${held
      .map((p) => {
        const own = mb(p.figures.rss_kb - empty.figures.rss_kb)
        const estimate = mb(p.figures.estimate_kb ?? 0)
        return `${thousands(p.memories ?? 0)} memories ${estimate} MB estimated, ${own} MB measured (${own > 0 ? `${Math.round((estimate / own - 1) * 100)} %` : "–"})`
      })
      .join("; ")}.`
  ]
}

/** Short names for the chart's categories (the table has the long ones). */
const stageLabel = (r: StageRow) =>
  `${r.database === "PGlite" ? "PGlite" : "PG"} ${r.memories <= 1 ? "at rest" : `${r.memories >= 1e6 ? `${r.memories / 1e6}M` : `${r.memories / 1000}k`}`}`
const partLabel = (p: PartRow) =>
  ({
    pglite: "PGlite",
    "pglite reopened": "PGlite again",
    embedder: "embedder",
    "embedder-32-single": "emb. 32×1",
    "embedder-32-batch": "emb. 1×32",
    reranker: "reranker",
    nlp: "NLP",
    baseline: "baseline"
  })[p.part] ?? p.part.replace(/(\d+),000,000$/, "$1M").replace(/(\d+),000$/, "$1k")

/** Two charts, stacked in one SVG: the stages, then the parts. */
export const chart = (stages: ReadonlyArray<StageRow>, parts: ReadonlyArray<PartRow>) => {
  const charts = [
    barChart({
      title: "Resident memory of npm start (MB), idle after a search and an ask",
      yLabel: "MB",
      categories: stages.map(stageLabel),
      series: [
        { name: "whole process tree (npm, sh, node)", values: stages.map((r) => r.tree_rss_mb) },
        { name: "server node", values: stages.map((r) => r.server.rss_mb) },
        { name: "server node: anonymous", values: stages.map((r) => r.server.rss_anon_mb) },
        { name: "server node: peak since start", values: stages.map((r) => r.server.peak_rss_mb) }
      ]
    }),
    barChart({
      title: "Each part alone: MB over the baseline process",
      yLabel: "MB",
      categories: parts.filter((p) => p.part !== "baseline").map(partLabel),
      series: [
        {
          name: "RSS over baseline",
          values: parts.filter((p) => p.part !== "baseline").map((p) => p.over_baseline_mb.rss)
        },
        {
          name: "peak over baseline",
          values: parts.filter((p) => p.part !== "baseline").map((p) => p.over_baseline_mb.peak)
        }
      ]
    })
  ].filter((_, i) => (i === 0 ? stages.length > 0 : parts.length > 0))
  // Nested <svg> elements, one under the other, in an outer one as wide and as tall as both.
  let height = 0
  const nested = charts.map((svg) => {
    const y = height
    height += Number(/height="(\d+)"/.exec(svg)?.[1] ?? 0)
    return svg.replace("<svg ", `<svg y="${y}" `)
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="${height}" viewBox="0 0 760 ${height}">\n${nested.join("")}</svg>\n`
}
