/**
 * UMO, Mem0 (open source) and Engram head to head, in one run, offline, with no language model:
 * the same LoCoMo memories, the same queries, the same embedder (all-mpnet-base-v2, fp32), UMO and
 * Mem0 on the same PostgreSQL. Retrieval quality per category, capture throughput, search latency,
 * memory and disk; then all three at growing sizes in one account. Opt-in: installs the peers,
 * pinned, into their own virtualenv on first run (bench/src/peers/Venv.ts).
 *
 *   npm run bench:peers                    # 5 conversations, 997 questions; scale 1k and 10k
 *   npm run bench:peers -- --quick         # conv-30, every 2nd question; scale 200 and 500
 *   npm run bench:peers -- --scale-50k     # adds 50k to the scale run
 *   npm run bench:peers -- --systems umo,engram --no-scale --conversations conv-26
 *
 *   npm run bench:peers -- --from-results bench/results/peers.json   # re-render, run nothing
 *   npm run bench:peers -- --recall-from bench/results/peers.json    # keep its LoCoMo part, run scale again
 *
 * A full run writes bench/results/peers.json, peers.svg, peers-scale.svg, bench/peers.md and the
 * README's head-to-head block; a quick or partial run writes bench/results/peers-quick.{json,svg,md}
 * (git-ignored) and prints (peers/Publish.ts). Before it
 * reports, it checks that every system was given the same memories and queries and used the same
 * embedder (Manifest.ts), and refuses to report otherwise.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { agreementFloor, compareManifests, embeddingAgreement, type Manifest } from "./peers/Manifest.js"
import { peerScores } from "./peers/Metrics.js"
import { publish } from "./peers/Publish.js"
import {
  categoryTable,
  type FairnessPhase,
  type PeersResults,
  recallTable,
  type SystemResult,
  scaleTable
} from "./peers/Report.js"
import {
  dropDatabase,
  peerSystem,
  provisionDatabase,
  type SystemUnderTest,
  umoSystem
} from "./peers/Systems.js"
import { ensurePeers } from "./peers/Venv.js"
import {
  expectedDigests,
  feedRecall,
  feedScale,
  type RecallWorkload,
  recallWorkload,
  type ScaleWorkload,
  scaleWorkload
} from "./peers/Workload.js"
import { argument, benchSigningKey, modelsDir, progress, quick, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"

const fromResults = argument("from-results")
if (fromResults !== undefined) {
  const saved = JSON.parse(readFileSync(fromResults, "utf8")) as PeersResults
  console.log(`wrote ${publish(root, saved, { writeJson: false }).join(", ")}`)
  process.exit(0)
}

const allSystems = ["umo", "mem0", "engram"] as const
const chosen = (argument("systems")?.split(",") ?? [...allSystems]).filter((s) =>
  (allSystems as ReadonlyArray<string>).includes(s)
)
const conversationsArg = argument("conversations")?.split(",")
const questionEvery = Number(argument("question-every") ?? (quick ? 2 : 1))
const withScale = !process.argv.includes("--no-scale")
// The LoCoMo part of an earlier full run, kept as it was while the scale part runs again.
const recallFrom = argument("recall-from")
const savedRecall =
  recallFrom === undefined ? undefined : (JSON.parse(readFileSync(recallFrom, "utf8")) as PeersResults)
const withRecall = !process.argv.includes("--no-recall") && savedRecall === undefined
const sizes =
  argument("sizes")?.split(",").map(Number) ??
  (quick ? [200, 500] : [1_000, 10_000, ...(process.argv.includes("--scale-50k") ? [50_000] : [])])
const scaleQueries = Number(argument("scale-queries") ?? (quick ? 20 : 100))
const partial =
  quick ||
  chosen.length !== allSystems.length ||
  conversationsArg !== undefined ||
  questionEvery !== 1 ||
  !withScale ||
  (!withRecall && savedRecall === undefined) ||
  argument("sizes") !== undefined

const model = "sentence-transformers/all-mpnet-base-v2"
if (!existsSync(join(modelsDir, model, "onnx", "model.onnx"))) {
  console.error(
    `bench:peers: ${join(modelsDir, model, "onnx", "model.onnx")} (the fp32 graph every system here embeds with) is missing; run \`npm run fetch-models -- --fp32\``
  )
  process.exit(1)
}
const peersEnv = chosen.some((s) => s !== "umo") ? ensurePeers(root) : undefined
const labels: Record<string, string> = {
  umo: "UMO",
  mem0: "Mem0 OSS (infer=False)",
  engram: "Engram (no reranker)"
}

/** Starts one system on fresh storage; the returned cleanup removes that storage. */
const start = async (
  id: string,
  phase: string,
  spaces: ReadonlyArray<string>
): Promise<{ system: SystemUnderTest; cleanup: () => void }> => {
  if (id === "umo") {
    const url = provisionDatabase(root, `umo_bench_peers_${phase}_umo`)
    const system = await umoSystem({
      root,
      spaces,
      databaseUrl: url,
      modelsDir,
      model,
      precision: "fp32",
      signingKey: benchSigningKey()
    })
    return { system, cleanup: () => dropDatabase(url) }
  }
  const workDir = mkdtempSync(join(tmpdir(), `umo-bench-peers-${id}-`))
  const url = id === "mem0" ? provisionDatabase(root, `umo_bench_peers_${phase}_mem0`) : undefined
  const system = await peerSystem({
    id,
    label: labels[id]!,
    python: peersEnv!.python,
    script: join(root, "bench", "peers", `${id}_driver.py`),
    modelDir: peersEnv!.modelDir,
    workDir,
    ...(url ? { databaseUrl: url } : {})
  })
  return {
    system,
    cleanup: () => {
      rmSync(workDir, { recursive: true, force: true })
      if (url) dropDatabase(url)
    }
  }
}

/** Texts every system embeds for the agreement check: memories and questions of the workload. */
const probeTexts = (workload: RecallWorkload | ScaleWorkload) =>
  workload.kind === "recall"
    ? [
        ...workload.spaces[0]!.items.slice(0, 6).map((i) => i.text),
        ...workload.questions.slice(0, 6).map((q) => q.question)
      ]
    : [...workload.items.slice(0, 6).map((i) => i.text), ...workload.queries[0]!.slice(0, 6)]

const results = new Map<string, { -readonly [K in keyof SystemResult]: SystemResult[K] }>()
const fairness: { recall?: FairnessPhase; scale?: FairnessPhase } = {}

const runPhase = async (workload: RecallWorkload | ScaleWorkload) => {
  const manifests: Record<string, Manifest> = {}
  const vectors: Record<string, Array<Array<number>>> = {}
  const spaces = workload.kind === "recall" ? workload.spaces.map((s) => s.space) : [workload.space]
  for (const id of chosen) {
    const { system, cleanup } = await start(id, workload.kind, spaces)
    try {
      await system.warm()
      const entry = results.get(id) ?? {
        id,
        label: labels[id]!,
        versions: system.versions,
        config: system.config
      }
      results.set(id, entry)
      if (workload.kind === "recall") {
        const run = await feedRecall(system, workload, progress)
        const { ranked, ...rest } = run
        entry.recall = { ...rest, scores: peerScores(ranked) }
      } else {
        entry.scale = await feedScale(system, workload, progress)
      }
      manifests[id] = await system.manifest()
      vectors[id] = await system.embed(probeTexts(workload))
    } finally {
      await system.close()
      cleanup()
    }
    process.stderr.write(`\n${id}: ${workload.kind} done\n`)
  }
  const expected = expectedDigests(workload)
  const agreement = embeddingAgreement(vectors)
  const problems = [
    ...compareManifests(expected, manifests),
    ...agreement
      .filter((a) => a.min_cosine < agreementFloor)
      .map((a) => `embeddings disagree: ${a.pair} min cosine ${a.min_cosine} < ${agreementFloor}`)
  ]
  fairness[workload.kind] = { expected, manifests, embedder_agreement: agreement, problems }
  if (problems.length > 0) {
    console.error(
      `bench:peers: the comparison is not fair, so nothing is reported:\n- ${problems.join("\n- ")}`
    )
    process.exit(1)
  }
}

const recall = recallWorkload(root, {
  ...(conversationsArg ? { conversations: conversationsArg } : quick ? { conversations: ["conv-30"] } : {}),
  questionEvery
})
if (savedRecall) {
  const missing = chosen.filter((id) => !savedRecall.systems.some((s) => s.id === id && s.recall))
  if (savedRecall.quick || !savedRecall.fairness.recall || missing.length > 0) {
    console.error(
      `bench:peers: --recall-from needs a full run's results with every system's LoCoMo part (${recallFrom})`
    )
    process.exit(1)
  }
}
if (withRecall) await runPhase(recall)
if (withScale) await runPhase(scaleWorkload(root, sizes, scaleQueries))

if (savedRecall) {
  for (const saved of savedRecall.systems) {
    const entry = results.get(saved.id)
    if (entry && saved.recall) entry.recall = saved.recall
  }
  fairness.recall = savedRecall.fairness.recall!
}
const systems = chosen.map((id) => results.get(id)!).filter(Boolean)
const output: PeersResults = {
  benchmark: "UMO, Mem0 and Engram on LoCoMo and at scale (bench:peers)",
  quick: partial,
  machine: machine(),
  data: {
    conversations: recall.spaces.map((s) => s.space),
    memories: recall.spaces.reduce((n, s) => n + s.items.length, 0),
    questions: recall.questions.length
  },
  sizes: withScale ? sizes : [],
  // Where the LoCoMo part was measured: the saved run's own, or the one it kept in turn.
  ...(savedRecall
    ? {
        recall_from: {
          file: recallFrom!,
          date: savedRecall.recall_from?.date ?? savedRecall.machine.date,
          cpu: savedRecall.recall_from?.cpu ?? savedRecall.machine.cpu
        }
      }
    : {}),
  systems,
  fairness
}
console.log(`\n${recallTable(systems)}\n\n${categoryTable(systems)}\n\n${scaleTable(systems)}`)
console.log(`wrote ${publish(root, output, { writeJson: true }).join(", ")}`)
