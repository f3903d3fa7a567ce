/**
 * Where bench:peers's results go. A full run writes bench/results/peers.json, its two charts,
 * bench/peers.md and the head-to-head block of bench/README.md (between `<!-- peers:start -->` and
 * `<!-- peers:end -->`, under "Beside Mem0 and Engram"), so that page always shows the last full run;
 * a quick or partial run writes bench/results/peers-quick.* only (git-ignored). `--from-results`
 * renders the same files again from a results JSON, without running anything, for when the page's
 * wording changes but the figures should not.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { writeReadmeSection } from "../support/Readme.js"
import {
  categoryTable,
  keptFromAnotherMachine,
  type PeersResults,
  pageText,
  recallChart,
  recallTable,
  scaleChart,
  scaleTable,
  settleNote
} from "./Report.js"

const sizesText = (sizes: ReadonlyArray<number>) => sizes.map((s) => s.toLocaleString("en-US")).join(" and ")

/**
 * bench/README.md's head-to-head block: the like-for-like table and both charts, linked relative
 * to bench/README.md.
 */
export const headToHead = (results: PeersResults) => {
  const m = results.machine
  const keptElsewhere = keptFromAnotherMachine(results)
  // Each system lists its own package first (Systems.ts, the drivers' `init`).
  const versions = results.systems
    .map((s) => Object.entries(s.versions)[0])
    .filter((v) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")
  return `UMO beside Mem0 open source and Engram, measured together by \`npm run bench:peers\`: the same
${results.data.memories} LoCoMo memories (one per dialogue turn, the same text), the same ${results.data.questions} questions as
queries (limit 50), the same embedder (all-mpnet-base-v2, fp32, from the same PyPI packages), UMO and
Mem0 on the same PostgreSQL, no language model anywhere; ${m.cores} cores (${m.cpu}), ${m.date}${
    keptElsewhere === undefined
      ? ""
      : ` (the LoCoMo table: ${keptElsewhere}, ${results.recall_from?.date}, kept while the scale table was run again)`
  }.
Recall is turn level (is the evidence turn among the top k); session hit@10 (any of the top 10 from an
evidence session) is the kind of figure memory layers publish. Mem0 ran with \`infer=False\` (its LLM
extraction needs a language model) and Engram without its reranker (its weights are only on the
Hugging Face hub); ${versions}.

${recallTable(results.systems)}

![Recall on LoCoMo: UMO, Mem0 and Engram](results/peers.svg)

${
  results.sizes.length > 0
    ? `One account growing to ${sizesText(results.sizes)} memories, each system embedding every one:

${scaleTable(results.systems)}

${settleNote(results.systems)}

![Search latency and capture rate as one account grows](results/peers-scale.svg)

`
    : ""
}How each peer was configured, recall per LoCoMo category, the fairness checks and the figures each
project publishes for itself (other metrics, other set-ups): [\`peers.md\`](peers.md).`
}

/** Writes the results, charts and pages of one run (see the module comment for which). */
export const publish = (
  root: string,
  results: PeersResults,
  options: { readonly writeJson: boolean }
): ReadonlyArray<string> => {
  const { systems, quick: partial } = results
  const tables = {
    recall: recallTable(systems),
    categories: categoryTable(systems),
    scale: scaleTable(systems)
  }
  const out = join(root, "bench", "results")
  mkdirSync(out, { recursive: true })
  const name = partial ? "peers-quick" : "peers"
  const written: Array<string> = []
  const write = (file: string, text: string) => {
    writeFileSync(join(root, file), text)
    written.push(file)
  }
  if (options.writeJson) write(`bench/results/${name}.json`, `${JSON.stringify(results, null, 2)}\n`)
  if (systems.some((s) => s.recall))
    write(
      `bench/results/${name}.svg`,
      recallChart(systems, `LoCoMo, ${results.data.questions} questions, same memories and embedder`)
    )
  if (systems.some((s) => s.scale))
    write(
      `bench/results/${name}-scale.svg`,
      scaleChart(systems, "One account growing: search latency and capture")
    )
  const page = pageText(results, tables)
  if (partial) write("bench/results/peers-quick.md", page)
  else {
    write("bench/peers.md", page)
    writeReadmeSection(root, "peers", headToHead(results))
    written.push("bench/README.md (the peers block)")
  }
  return written
}
