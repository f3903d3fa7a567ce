/**
 * Search latency and capture throughput at scale: p50 / p95 / p99 search, server-side
 * (`Server-Timing`) and end to end, with 1k, 10k and 100k memories in one account, on PGlite and
 * PostgreSQL; batch capture into that account beside the raw embedder on the same texts; HNSW
 * recall@10 against an exact scan; the server's memory and the database's size; start-up time.
 *
 *   npm run bench:search                               # 1k, 10k, 100k on PGlite
 *   npm run bench:search -- --sizes 1000,10000         # chosen sizes
 *   npm run bench:search -- --pglite-sizes 1000,10000  # fewer on PGlite (100k takes long to load)
 *   npm run bench:search -- --quick                    # 500 memories, 30 questions
 *   npm run bench:search -- --data-dir DIR             # keep the PGlite data in DIR: a later run reuses it
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:search   # PostgreSQL too (a fresh database)
 *
 * The corpus is synthetic but made of real embeddings, loaded straight through the pipeline and
 * the store (`support/ScaleCorpus`); queries are LoCoMo questions, embedded by the real model in
 * the server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AccountStore, type Embedder, MemorySearch, MemoryStore, Pipeline } from "@umo/core"
import { Database, defaultPlugins } from "@umo/plugins"
import { Effect, type Layer } from "effect"
import { SqlClient } from "effect/sql"
import { makeSearch } from "../../plugins/src/storage/SqlMemorySearch.js"
import { startServer } from "../../server/test/support/ServerProcess.js"
import { dataDir, load, memoryText } from "./recall/LoCoMo.js"
import { captureInBatches } from "./support/BatchCapture.js"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { seeded } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { rawEmbedder } from "./support/RawEmbedder.js"
import { publishResults, resultsFile } from "./support/Results.js"
import * as ScaleCorpus from "./support/ScaleCorpus.js"
import { percentile, round1 } from "./support/Stats.js"

const sizes = (argument("sizes")?.split(",").map(Number) ?? (quick ? [500] : [1_000, 10_000, 100_000])).sort(
  (a, b) => a - b
)
const pgliteSizes = argument("pglite-sizes")?.split(",").map(Number)
const queriesPerSize = quick ? 30 : 200
/** LoCoMo turns captured through `POST /v1/batch` (100 a call) into the account at each size. */
const capturedPerSize = quick ? 100 : 300
const apiKey = `umo_bench-search-${"0".repeat(24)}`

const { turns: allTurns, questions } = load(dataDir(root))

const sampleRandom = seeded(11)
// Drawn without replacement (a seeded Fisher-Yates shuffle of the distinct questions): the server
// keeps the vectors of queries it has seen, so a question asked twice would time its cache.
const distinctQuestions = [...new Set(questions.map((q) => q.question))]
for (let i = distinctQuestions.length - 1; i > 0; i--) {
  const j = Math.floor(sampleRandom() * (i + 1))
  ;[distinctQuestions[i], distinctQuestions[j]] = [distinctQuestions[j]!, distinctQuestions[i]!]
}
const sampleQuestions = distinctQuestions.slice(0, queriesPerSize)

const corpus = await ScaleCorpus.make({ root, quick, queries: sampleQuestions })
const dims = corpus.model.dimensions

/** Adds memories up to `size` to the account, then measures HNSW recall@10 against an exact scan. */
const grow = (size: number, sample: ReadonlyArray<{ text: string; vector: ReadonlyArray<number> }>) =>
  Effect.gen(function* () {
    // The corpus is the same every run: an account an earlier run filled (a kept PostgreSQL
    // database) is topped up, not loaded again.
    const account_id = yield* corpus.load("search-bench", size)
    // Exact neighbours: the same query with index scans switched off (a full scan of the vectors).
    const sql = yield* SqlClient.SqlClient
    const index = yield* MemorySearch
    let found = 0
    for (const q of sample) {
      const approximate = new Set(
        (yield* index.searchVector(account_id, q.vector, { limit: 10 })).map((c) => c.umo_id)
      )
      const exact = yield* sql.withTransaction(
        Effect.andThen(
          sql`SET LOCAL enable_indexscan = off`,
          index.searchVector(account_id, q.vector, { limit: 10 })
        )
      )
      found += exact.filter((c) => approximate.has(c.umo_id)).length
    }
    const [bytes] = yield* sql<{ size: string }>`SELECT pg_database_size(current_database())::text AS size`
    return {
      hnsw_recall_at_10: Math.round((1000 * found) / (10 * sample.length)) / 1000,
      small_account_recall_at_10: yield* smallAccountRecall(Pipeline.make(defaultPlugins()), sample),
      database_mb: Math.round(Number(bytes?.size ?? 0) / 2 ** 20)
    }
  })

/**
 * A 100-memory account beside the big one: recall@10 of the shared HNSW index (the search with
 * its exact scan for small accounts switched off) and of the search as configured, each against
 * an exact scan of the account's vectors.
 */
const smallAccountRecall = (
  pipeline: Pipeline.Pipeline<Embedder>,
  sample: ReadonlyArray<{ text: string; vector: ReadonlyArray<number> }>
) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const { account_id } = yield* (yield* AccountStore).ensureAccount("search-bench-small")
    const stored = (yield* store.list(account_id, { limit: 1, offset: 0 })).total
    const texts = corpus.texts.slice(0, 100 - stored).map((content) => ({ content, source: "bench" }))
    const umos = yield* Effect.forEach(texts, (text) => pipeline.process(text), { concurrency: "unbounded" })
    for (const umo of umos) yield* store.insert(account_id, umo)
    const sql = yield* SqlClient.SqlClient
    const configured = yield* MemorySearch
    const viaIndex = makeSearch(sql, dims, { exactBelow: 0 })
    const exact = makeSearch(sql, dims, { exactBelow: Number.MAX_SAFE_INTEGER })
    const recall = (search: typeof exact) =>
      Effect.gen(function* () {
        let found = 0
        for (const q of sample) {
          const got = new Set(
            (yield* search.searchVector(account_id, q.vector, { limit: 10 })).map((c) => c.umo_id)
          )
          found += (yield* exact.searchVector(account_id, q.vector, { limit: 10 })).filter((c) =>
            got.has(c.umo_id)
          ).length
        }
        return Math.round((1000 * found) / (10 * sample.length)) / 1000
      })
    return { index_only: yield* recall(viaIndex), as_searched: yield* recall(configured) }
  }).pipe(Effect.orDie)

/**
 * Batch capture into the big account through the API, as memories per second, and as a share of
 * the raw embedder on the same texts (measured before any server started). The captured turns
 * stay in the account: the next size's load tops it up with that many fewer corpus memories.
 */
const captureTexts = allTurns.slice(0, capturedPerSize).map(memoryText)
const raw = await rawEmbedder(captureTexts)
const captureThroughput = async (baseUrl: string) => {
  const started = performance.now()
  await captureInBatches(baseUrl, apiKey, captureTexts, "capture-bench")
  const perSecond = captureTexts.length / ((performance.now() - started) / 1000)
  return {
    memories_per_second: round1(perSecond),
    ratio_to_raw_embedder: Math.round((100 * perSecond) / raw.per_second) / 100
  }
}

/** Search through the API: end-to-end time at the client, server time and stages from `Server-Timing`. */
const measure = async (baseUrl: string) => {
  const endToEnd: Array<number> = []
  const server: Array<number> = []
  const stages = new Map<string, Array<number>>()
  for (const question of ["warm-up", ...sampleQuestions]) {
    const started = performance.now()
    const response = await fetch(`${baseUrl}/v1/memories/query`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: question, limit: 10 })
    })
    await response.json()
    if (!response.ok) throw new Error(`search answered ${response.status}`)
    if (question === "warm-up") continue
    endToEnd.push(performance.now() - started)
    // "app;dur=61.2, embed;dur=30.1, …": the whole request, then its stages.
    for (const [, name, ms] of (response.headers.get("server-timing") ?? "").matchAll(
      /([\w-]+);dur=([\d.]+)/g
    )) {
      if (name === "app") server.push(Number(ms))
      else stages.set(name!, [...(stages.get(name!) ?? []), Number(ms)])
    }
  }
  const stats = (xs: Array<number>) => {
    const sorted = [...xs].sort((a, b) => a - b)
    return {
      p50: round1(percentile(sorted, 0.5)),
      p95: round1(percentile(sorted, 0.95)),
      p99: round1(percentile(sorted, 0.99))
    }
  }
  return {
    end_to_end_ms: stats(endToEnd),
    server_ms: stats(server),
    stages_ms: Object.fromEntries([...stages].map(([name, xs]) => [name, stats(xs)]))
  }
}

const databases: Array<{
  name: string
  database: (dir: string) => Layer.Layer<SqlClient.SqlClient, unknown>
  env: Record<string, string>
}> = [
  {
    name: "PGlite",
    database: (dir) => Database.pglite({ dataDir: join(dir, "pglite") }),
    env: { UMO_SIGNING_KEY: benchSigningKey() }
  }
]
const pgUrl = process.env.UMO_BENCH_DATABASE_URL
if (pgUrl)
  databases.push({
    name: "PostgreSQL",
    database: () => Database.postgres(pgUrl),
    env: { DATABASE_URL: pgUrl, UMO_SIGNING_KEY: benchSigningKey() }
  })

// A kept directory lets a later run (after a change to search) skip loading the corpus again.
const keptDir = argument("data-dir")
const rows: Array<Record<string, unknown>> = []
for (const db of databases) {
  const dir = keptDir ? join(keptDir, db.name) : mkdtempSync(join(tmpdir(), "umo-bench-search-"))
  mkdirSync(dir, { recursive: true })
  for (const size of sizes) {
    if (db.name === "PGlite" && pgliteSizes && !pgliteSizes.includes(size)) continue
    const started = performance.now()
    const grown = await Effect.runPromise(
      grow(size, corpus.queryVectors).pipe(Effect.provide(corpus.storage(db.database(dir))))
    )
    const loadSeconds = round1((performance.now() - started) / 1000)
    progress(`search: ${db.name}, ${size.toLocaleString("en")} memories: querying`)
    const server = await startServer(root, { [apiKey]: "search-bench" }, db.env, { dataDir: dir })
    try {
      const latency = await measure(server.baseUrl)
      progress(`search: ${db.name}, ${size.toLocaleString("en")} memories: capturing`)
      const capture = await captureThroughput(server.baseUrl)
      rows.push({
        database: db.name,
        memories: size,
        measured: new Date().toISOString().slice(0, 10),
        ...latency,
        capture,
        ...grown,
        server_rss_mb: server.rssMb(),
        startup_ms: server.startupMs,
        load_seconds: loadSeconds
      })
    } finally {
      await server.stop()
    }
  }
  if (!keptDir) rmSync(dir, { recursive: true, force: true })
}
process.stderr.write("\n")

// A run replaces the rows it measured and keeps the others, so sizes that take long to load
// (100k) can be measured in a run of their own.
const kept = resultsFile(root, "search", quick, "json")
const previous = existsSync(kept)
  ? (JSON.parse(readFileSync(kept, "utf8")).runs as Array<Record<string, unknown>>)
  : []
const key = (r: Record<string, unknown>) => `${r.database} ${r.memories}`
const measured = new Set(rows.map(key))
const runs = [...previous.filter((r) => !measured.has(key(r))), ...rows].sort(
  (a, b) =>
    databases.findIndex((d) => d.name === a.database) - databases.findIndex((d) => d.name === b.database) ||
    (a.memories as number) - (b.memories as number)
)

type Percentiles = { p50: number; p95: number; p99: number }
const small = (r: Record<string, unknown>) => {
  const recall = r.small_account_recall_at_10 as { index_only: number; as_searched: number } | undefined
  return recall ? `${recall.index_only} / ${recall.as_searched}` : "–"
}
const stageNames = [...new Set(runs.flatMap((r) => Object.keys((r.stages_ms ?? {}) as object)))]
const captured = (r: Record<string, unknown>) => {
  const c = r.capture as { memories_per_second: number; ratio_to_raw_embedder: number } | undefined
  return c ? `${c.memories_per_second} (${c.ratio_to_raw_embedder})` : "–"
}
const table = [
  `Raw embedder (${raw.model}, calls of 100, this process): **${raw.per_second} texts/s** on the ${captureTexts.length} LoCoMo turns each size captures.`,
  "",
  "| database | memories | end-to-end p50 / p95 / p99 ms | server p50 / p95 / p99 ms | batch capture memories/s (ratio to raw embedder) | HNSW recall@10 | 100-memory account recall@10: index / as searched | server RSS MB | database MB | start-up ms | measured |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  ...runs.map((r) => {
    const e = r.end_to_end_ms as Percentiles
    const s = r.server_ms as Percentiles
    return `| ${r.database} | ${(r.memories as number).toLocaleString("en")} | ${e.p50} / ${e.p95} / ${e.p99} | ${s.p50} / ${s.p95} / ${s.p99} | ${captured(r)} | ${r.hnsw_recall_at_10} | ${small(r)} | ${r.server_rss_mb} | ${r.database_mb} | ${r.startup_ms} | ${r.measured ?? "before 2026-11-23"} |`
  }),
  "",
  "Where the server's time goes, p50 / p95 ms per stage (`Server-Timing`; text search runs while the query is embedded, then vector search):",
  "",
  `| database | memories | ${stageNames.join(" | ")} |`,
  `|---|---|${stageNames.map(() => "---|").join("")}`,
  ...runs.map((r) => {
    const stages = (r.stages_ms ?? {}) as Record<string, Percentiles>
    return `| ${r.database} | ${(r.memories as number).toLocaleString("en")} | ${stageNames
      .map((n) => (stages[n] ? `${stages[n].p50} / ${stages[n].p95}` : "–"))
      .join(" | ")} |`
  })
].join("\n")
console.log(table)
const results = {
  benchmark: "search latency at scale",
  machine: machine(),
  quick,
  embedder: corpus.model.id,
  raw_embedder_per_second: raw.per_second,
  queries_per_size: queriesPerSize,
  captured_per_size: captureTexts.length,
  runs
}
publishResults(
  root,
  "search",
  results,
  barChart({
    title: "Search latency, p95 (ms)",
    yLabel: "ms",
    categories: runs.map(
      (r) => `${r.database === "PGlite" ? "PGlite" : "PG"} ${(r.memories as number) / 1000}k`
    ),
    series: [
      { name: "end to end", values: runs.map((r) => (r.end_to_end_ms as Percentiles).p95) },
      { name: "server", values: runs.map((r) => (r.server_ms as Percentiles).p95) }
    ],
    reference: { value: 50, label: "target p95 50 ms (PostgreSQL, 100k)" }
  }),
  table
)
