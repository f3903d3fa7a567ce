/**
 * Resident memory of what `npm start` runs, summed over its whole process tree (npm, its shell,
 * the server's node: /proc, children of children), at rest and holding 10,000 and 100,000
 * memories; and of each part of the server alone (database, models, language engines, index).
 *
 *   npm run bench:memory                        # parts, then stages: PGlite at rest and 10k, PostgreSQL at rest, 10k and 100k
 *   npm run bench:memory -- --parts             # the parts alone
 *   npm run bench:memory -- --stages            # the stages alone
 *   npm run bench:memory -- --max 1000000 --index-budget-mb 4096   # up to 1M on PostgreSQL (hours; the default budget of 1,024 MB never loads 1M)
 *   npm run bench:memory -- --pglite-max 0      # no PGlite stages beyond at rest
 *   npm run bench:memory -- --database-url postgres://…/empty_db   # a given empty database (else one is made)
 *   npm run bench:memory -- --no-build          # skip `npm run build` (server/dist as it is)
 *   npm run bench:memory -- --api-load 10000    # only: PGlite filled through the API (right after, idle, restarted)
 *
 * A stage: `npm start` with PORT and UMO_DATA_DIR (PGlite) or DATABASE_URL, the API key read
 * from what it prints on first start; at rest one memory captured through the API, else the
 * account filled beforehand by the scale corpus's bulk load (bench:search's loader: real
 * embeddings of LoCoMo turns, the real store) and the server started on it afresh, as a
 * deployment restarts on its data, and then once more: the first start builds the account's vector
 * graph and saves its snapshot, the second takes the snapshot up (how long until the index serves,
 * both ways). Then: until `GET /health` says the index serves the account, one search, one ask,
 * idle, measured. `--api-load N` instead fills a new PGlite store through `POST /v1/batch` (LoCoMo
 * turns, 100 a call, 2 in flight, as bench:burst) and measures it the moment the last batch is
 * acknowledged, then idle as every stage, then restarted on its data. A run replaces the stages
 * (by name) or the parts it measured and keeps the others.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database } from "@umo/plugins"
import { Effect, type Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { buildPackages } from "./memory/NpmServer.js"
import { bareNodeKb, measureParts, type PartRow } from "./memory/Parts.js"
import { mb } from "./memory/ProcessTree.js"
import { chart, partsTable, stagesTable } from "./memory/Report.js"
import { measureStage, type SourceState, type StageRow } from "./memory/Stages.js"
import { dataDir, load, memoryText } from "./recall/LoCoMo.js"
import { captureInBatches } from "./support/BatchCapture.js"
import { argument, benchSigningKey, progress, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"
import { publishResults, resultsFile } from "./support/Results.js"
import * as ScaleCorpus from "./support/ScaleCorpus.js"

const max = Number(argument("max") ?? 100_000)
const pgliteMax = Number(argument("pglite-max") ?? 10_000)
const onlyParts = process.argv.includes("--parts")
const onlyStages = process.argv.includes("--stages")
const idleSeconds = Number(argument("idle") ?? 10)
const sizes = [10_000, 100_000, 1_000_000].filter((s) => s <= max)
/** Loads adding this many memories to PostgreSQL build its HNSW index once, at the end (as bench:search). */
const rebuildFrom = 50_000
const turns = join(dataDir(root), "turns.jsonl")
/** `UMO_INDEX_MEMORY_MB` for the servers (default theirs, 1,024: too small for a million memories). */
const indexBudgetMb = argument("index-budget-mb")
/** Memories to capture through the API (`--api-load`); 0: the usual stages. */
const apiLoad = Number(argument("api-load") ?? 0)

/**
 * The sources now: HEAD, whether the packages' sources differ from it, and when their dist was
 * last built. Others may edit and rebuild the packages while a long run goes on: each stage says
 * what the dist was built from and whether it was rebuilt since (then the stage ran their build).
 */
const sourceState = (): SourceState => {
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim()
  const built = ["server/dist/main.js", "plugins/dist/search/AccountIndex.js"].map(
    (f) => statSync(join(root, f)).mtimeMs
  )
  return {
    commit: git("rev-parse", "--short", "HEAD"),
    edited: git("status", "--porcelain", "--", "core", "plugins", "memory", "server") !== "",
    dist_built: new Date(Math.max(...built)).toISOString()
  }
}

// What `npm start` runs is server/dist: built now, so the figures are of the sources as they are.
if (!process.argv.includes("--no-build")) {
  progress("memory: npm run build")
  buildPackages(root)
}
const built = sourceState()
const source = () => ({ ...built, dist_rebuilt_since: sourceState().dist_built !== built.dist_built })

const parts: Array<PartRow> = onlyStages || apiLoad > 0 ? [] : measureParts(root, turns, sizes, idleSeconds)
const bareNodeMb = mb(bareNodeKb())

// The corpus embeds LoCoMo's turns once (cached in .cache/bench); made only when a stage loads.
let corpus: ScaleCorpus.ScaleCorpus | undefined
const fill = async (database: Layer.Layer<SqlClient.SqlClient, unknown>, size: number, rebuild: boolean) => {
  corpus ??= await ScaleCorpus.make({ root, quick: false })
  const report = await Effect.runPromise(
    corpus
      .bulkLoad("default", size, () => ({}), { rebuildVectorIndex: rebuild })
      .pipe(Effect.provide(corpus.storage(database)))
  )
  process.stderr.write("\n")
  return report.store_seconds + (report.vector_index_seconds ?? 0)
}

const stages: Array<StageRow> = []
// Every server signs with the benchmarks' key, the one the bulk load signs the chain with.
const common = {
  UMO_SIGNING_KEY: benchSigningKey(),
  ...(indexBudgetMb === undefined ? {} : { UMO_INDEX_MEMORY_MB: indexBudgetMb })
}
const stageOptions = { root, idleSeconds, indexDeadlineMs: 3 * 3_600_000 }

/** One database through its stages: at rest (one memory through the API), then each size. */
const grow = async (
  database: StageRow["database"],
  env: Record<string, string>,
  layer: Layer.Layer<SqlClient.SqlClient, unknown>,
  upTo: number
) => {
  const rest = await measureStage({
    ...stageOptions,
    stage: `${database}: at rest`,
    database,
    memories: 1,
    loadedBy: "POST /v1/process",
    loadSeconds: null,
    env: { ...common, ...env },
    key: undefined,
    capture: true,
    source: source()
  })
  stages.push(rest.row)
  let held = 1
  for (const size of sizes.filter((s) => s <= upTo)) {
    progress(`memory: ${database}: loading ${size.toLocaleString("en")} memories`)
    const seconds = await fill(layer, size, database === "PostgreSQL" && size - held >= rebuildFrom)
    held = size
    // The first start builds the vector graph and saves its snapshot; the second takes it up.
    for (const [stage, loadedBy] of [
      ["restarted", "scale corpus bulk load, then a restart"],
      ["restarted again", "the start before, its graph's snapshot taken up (UMO_INDEX_SNAPSHOT_DIR)"]
    ] as const) {
      const { row } = await measureStage({
        ...stageOptions,
        stage: `${database}: ${size.toLocaleString("en")} memories, ${stage}`,
        database,
        memories: size,
        loadedBy,
        loadSeconds: stage === "restarted" ? seconds : null,
        env: { ...common, ...env },
        key: rest.key,
        capture: false,
        source: source()
      })
      stages.push(row)
    }
  }
}

/** LoCoMo turns through `POST /v1/batch`, 100 a call, 2 calls in flight; the seconds it took. */
const loadThroughApi = async (baseUrl: string, key: string, count: number) => {
  const { turns: all } = load(dataDir(root))
  // Another source past the last turn: the same text and source again would be a repeat.
  const items = Array.from({ length: count }, (_, k) => ({
    content: memoryText(all[k % all.length]!),
    source: `api-load-${Math.floor(k / all.length)}`
  }))
  const started = performance.now()
  let captured = 0
  await captureInBatches(baseUrl, key, items, {
    inFlight: 2,
    onAcknowledged: (n) => {
      captured += n
      if (captured % 2_000 === 0)
        progress(`memory: ${captured.toLocaleString("en")}/${count.toLocaleString("en")} captured`)
    }
  })
  return Math.round((performance.now() - started) / 1000)
}

if (apiLoad > 0) {
  const dir = mkdtempSync(join(tmpdir(), "umo-bench-memory-api-"))
  try {
    const name = `PGlite: ${apiLoad.toLocaleString("en")} captured through the API`
    const env = { ...common, UMO_DATA_DIR: dir }
    const loaded = await measureStage({
      ...stageOptions,
      stage: name,
      database: "PGlite",
      memories: apiLoad + 1,
      loadedBy: "POST /v1/batch, 100 a call, 2 in flight",
      loadSeconds: null,
      env,
      key: undefined,
      capture: true,
      load: (baseUrl, key) => loadThroughApi(baseUrl, key, apiLoad),
      source: source()
    })
    stages.push(loaded.row)
    const restarted = await measureStage({
      ...stageOptions,
      stage: `${name}, restarted`,
      database: "PGlite",
      memories: apiLoad + 1,
      loadedBy: "the start before, restarted on its data",
      loadSeconds: null,
      env,
      key: loaded.key,
      capture: false,
      source: source()
    })
    stages.push(restarted.row)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else if (!onlyParts) {
  const dir = mkdtempSync(join(tmpdir(), "umo-bench-memory-"))
  try {
    await grow("PGlite", { UMO_DATA_DIR: dir }, Database.pglite({ dataDir: join(dir, "pglite") }), pgliteMax)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  // A fresh database of this bench's own, unless one is given; dropped after the run.
  const given = argument("database-url")
  const url =
    given ??
    execFileSync("bash", [join(root, "scripts", "provision-postgres.sh")], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, UMO_TEST_DATABASE: "umo_bench_memory" }
    }).trim()
  try {
    // UMO_DATA_DIR too: the server keeps files beside the database (a lock, its key) there.
    const pgDir = mkdtempSync(join(tmpdir(), "umo-bench-memory-pg-"))
    await grow("PostgreSQL", { DATABASE_URL: url, UMO_DATA_DIR: pgDir }, Database.postgres(url), max)
    rmSync(pgDir, { recursive: true, force: true })
  } finally {
    if (given === undefined)
      spawnSync("psql", [
        "-h",
        "127.0.0.1",
        "-U",
        "postgres",
        "-d",
        "postgres",
        "-qc",
        "DROP DATABASE IF EXISTS umo_bench_memory WITH (FORCE)"
      ])
  }
}
process.stderr.write("\n")

// The stages or the parts this run did not measure are kept from the last run.
const file = resultsFile(root, "memory", false, "json")
const previous = existsSync(file)
  ? (JSON.parse(readFileSync(file, "utf8")) as { stages?: Array<StageRow>; parts?: Array<PartRow> })
  : {}
const keptStages = [
  ...(previous.stages ?? []).map((old) => stages.find((now) => now.stage === old.stage) ?? old),
  ...stages.filter((now) => !(previous.stages ?? []).some((old) => old.stage === now.stage))
]
const keptParts = parts.length > 0 ? parts : (previous.parts ?? [])
const table = [
  `\`npm start\` (npm, sh, node server/dist/main.js), idle ${idleSeconds} s after one search and one ask; PostgreSQL's own processes are not in the tree.`,
  "",
  ...stagesTable(keptStages),
  "",
  ...partsTable(keptParts, bareNodeMb, idleSeconds)
].join("\n")
console.log(table)
const results = {
  benchmark: "resident memory of npm start",
  machine: machine(),
  quick: false,
  idle_seconds: idleSeconds,
  index_budget_mb: indexBudgetMb === undefined ? "server default" : Number(indexBudgetMb),
  bare_node_mb: bareNodeMb,
  stages: keptStages,
  parts: keptParts
}
publishResults(root, "memory", results, chart(keptStages, keptParts), table)
