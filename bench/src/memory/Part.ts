/**
 * One part of the server alone, in a process of its own, run by plain Node (its type stripping,
 * not tsx: tsx's compiler would be counted too) on the built packages, as `npm start` runs them:
 *
 *   node --expose-gc bench/src/memory/Part.ts '{"part":"embedder","root":"/work/main","turns":"…/turns.jsonl","settleSeconds":10}'
 *
 * It does what the server does for that part (the same worker modules, on the same kind of
 * thread, with the same workerData), waits for the process to settle, and prints one line of JSON:
 * its resident memory then (VmRSS), its peak (VmHWM), RssAnon, RssFile and threads. `baseline`
 * does nothing: the cost of this script in a bare Node, which the other parts are measured over.
 * `--expose-gc` gives the figure after a collection too. Only erasable TypeScript here (Node
 * strips the types), and only type imports from the sources.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { Piscina } from "piscina"
import type { IndexedRow } from "../../../plugins/src/search/AccountIndex.js"

export interface PartRequest {
  readonly part: PartName
  readonly root: string
  /** LoCoMo's turns.jsonl: the texts embedded, reranked and indexed. */
  readonly turns: string
  /** Memories in the index (`index` only). */
  readonly memories?: number
  /** PGlite's data directory (`pglite` only): a new one is made by PostgreSQL's initdb on first open. */
  readonly dataDir?: string
  /** Seconds to wait after the work before measuring (the stages' idle time). */
  readonly settleSeconds: number
}

export type PartName =
  | "baseline"
  | "pglite"
  | "embedder"
  | "embedder-32-single"
  | "embedder-32-batch"
  | "reranker"
  | "judge"
  | "nlp"
  | "index"
  | "stall"

export interface PartFigures {
  readonly rss_kb: number
  readonly peak_rss_kb: number
  readonly rss_anon_kb: number
  readonly rss_file_kb: number
  readonly threads: number
  /**
   * VmRSS after a full garbage collection of this thread's heap (`--expose-gc`): what the part
   * keeps alive, without the garbage V8 had not yet collected (worker threads' heaps not included).
   */
  readonly rss_after_gc_kb: number
  /** This thread's V8 heap in use after that collection, and reserved; memory outside it (buffers, wasm…), in kB. */
  readonly heap_used_kb: number
  readonly heap_total_kb: number
  readonly external_kb: number
  /** Seconds the part's work took (loading included). */
  readonly seconds: number
  /** The index's own estimate of what it holds (`AccountIndex.held`, what `/health` reports as `held_mb`), in kB. */
  readonly estimate_kb?: number
  /** What a part reports beside its memory (`stall`: each phase's event-loop delay). */
  readonly detail?: unknown
}

/** One phase of the `stall` part: how long it took and how long the event loop waited at worst. */
export interface StallPhase {
  readonly seconds: number
  /** The event loop's delay (`monitorEventLoopDelay`, 5 ms resolution): the largest, and the 99th percentile, in ms. */
  readonly delay_max_ms: number
  readonly delay_p99_ms: number
  /** Searches made meanwhile (one every 10 ms), how many the index left to the database, and their time in this thread. */
  readonly searches?: number
  readonly left_to_database?: number
  readonly search_p95_ms?: number
  readonly search_max_ms?: number
}

const request = JSON.parse(process.argv[2] ?? "{}") as PartRequest
const dist = (path: string) => pathToFileURL(join(request.root, path)).href
const texts: Array<string> = readFileSync(request.turns, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => {
    const turn = JSON.parse(line) as { speaker: string; text: string }
    return `${turn.speaker}: ${turn.text}`
  })

/** Texts of about 1,000 characters (the embedder's chunk size): consecutive turns joined. */
const longTexts = (count: number) => {
  const out: Array<string> = []
  for (let at = 0; out.length < count; ) {
    let text = ""
    while (text.length < 950) text += `${texts[at++ % texts.length]} `
    out.push(text.slice(0, 1_000))
  }
  return out
}

/** A piscina pool of the worker module `name` beside `base`, as plugins/dist/support/WorkerPool.js makes it. */
const pool = async (base: string, name: string, workerData: unknown): Promise<Piscina> => {
  const { workerPool } = (await import(
    dist("plugins/dist/support/WorkerPool.js")
  )) as typeof import("../../../plugins/src/support/WorkerPool.js")
  return workerPool(dist(base), name, { minThreads: 1, maxThreads: 1, workerData })
}

const embedderSetup = {
  modelsDir: join(request.root, "models"),
  model: "sentence-transformers/all-mpnet-base-v2",
  precision: "int8",
  pooling: "mean"
}

/** A deterministic generator (mulberry32): the same index every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

/**
 * Memory i as the index would load it: two LoCoMo turns' text, its words counted as terms (the
 * store's stemmed lexemes are about as many), no entities or facts, one random unit vector of
 * 768 dimensions (the memories of the scale corpus are one chunk each).
 */
const syntheticRow = (i: number, random: () => number): IndexedRow => {
  const content = `${texts[Math.floor(random() * texts.length)]} ${texts[Math.floor(random() * texts.length)]}`
  const counts = new Map<string, number>()
  for (const word of content.toLowerCase().match(/[a-z0-9']+/g) ?? [])
    counts.set(word, (counts.get(word) ?? 0) + 1)
  const vector = new Float32Array(768)
  let norm = 0
  for (let d = 0; d < 768; d++) {
    vector[d] = random() * 2 - 1
    norm += vector[d]! * vector[d]!
  }
  for (let d = 0; d < 768; d++) vector[d]! /= Math.sqrt(norm)
  const time = new Date(Date.UTC(2023, 0, 1) + i * 60_000).toISOString()
  return {
    umo_id: `00000000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`,
    content,
    // A string of its own, as a row read from the database holds (a slice would share the content's).
    summary: Buffer.from(content.slice(0, 200)).toString(),
    source: "bench",
    user_id: null,
    agent_id: null,
    session_id: null,
    metadata: {},
    categories: [],
    superseded_by: null,
    timestamp: time,
    created_at: time,
    entities: [],
    facts: [],
    terms: [...counts],
    length: [...counts.values()].reduce((a, b) => a + b, 0),
    vectors: [vector]
  }
}

/**
 * The search index of one account holding `memories` through the work a server does beside its
 * requests, as IndexedMemorySearch and IndexSnapshots do it: loaded a page of 1,000 at a time, its
 * graph built a batch at a time, a snapshot taken while searches come every 10 ms, searches alone,
 * and the restart's load from that snapshot. Each phase's event-loop delay (the longest any timer
 * or request would have waited) is measured apart.
 */
const stall = async () => {
  const { AccountIndex } = (await import(
    dist("plugins/dist/search/AccountIndex.js")
  )) as typeof import("../../../plugins/src/search/AccountIndex.js")
  const { decodeKey, encodeKeys } = (await import(
    dist("plugins/dist/search/IndexSnapshots.js")
  )) as typeof import("../../../plugins/src/search/IndexSnapshots.js")
  const { monitorEventLoopDelay } = await import("node:perf_hooks")
  const { createHash } = await import("node:crypto")
  const { createReadStream, writeFileSync } = await import("node:fs")
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
  const phases: Record<string, StallPhase> = {}
  const ms = (ns: number) => Math.round(ns / 10_000) / 100
  const measure = async (
    name: string,
    work: () => Promise<void>,
    searched?: InstanceType<typeof AccountIndex>
  ) => {
    const delay = monitorEventLoopDelay({ resolution: 5 })
    const times: Array<number> = []
    let leftToDatabase = 0
    const query = Array.from(syntheticRow(-1, seeded(11)).vectors[0]!)
    const ticker =
      searched === undefined
        ? undefined
        : setInterval(() => {
            const started = performance.now()
            if (searched.searchVector(query, { limit: 10 }) === undefined) leftToDatabase++
            times.push(performance.now() - started)
          }, 10)
    delay.enable()
    const started = performance.now()
    await work()
    delay.disable()
    if (ticker !== undefined) clearInterval(ticker)
    times.sort((a, b) => a - b)
    phases[name] = {
      seconds: Math.round(performance.now() - started) / 1000,
      delay_max_ms: ms(delay.max),
      delay_p99_ms: ms(delay.percentile(99)),
      ...(searched === undefined
        ? {}
        : {
            searches: times.length,
            left_to_database: leftToDatabase,
            search_p95_ms: Math.round((times[Math.floor(times.length * 0.95)] ?? 0) * 100) / 100,
            search_max_ms: Math.round((times.at(-1) ?? 0) * 100) / 100
          })
    }
    process.stderr.write(`stall: ${name} ${JSON.stringify(phases[name])}\n`)
  }
  /** The longest 250 rows took to add (the server's part of a load; making the rows is this bench's). */
  let longestPageMs = 0
  const loaded = async () => {
    // As IndexedMemorySearch's load: room for the account's count of memories made at once, the
    // rows added 250 at a time (its `rowsAtOnce`) between turns of the event loop.
    const memories = request.memories ?? 0
    const index = new AccountIndex(768, join(tmpdir(), "umo-index"), memories)
    const random = seeded(7)
    for (let from = 0; from < memories; from += 250) {
      const page = Array.from({ length: Math.min(250, memories - from) }, (_, i) =>
        syntheticRow(from + i, random)
      )
      await turn()
      const started = performance.now()
      for (const row of page) index.add(row, { bulk: true })
      longestPageMs = Math.max(longestPageMs, performance.now() - started)
      await turn()
    }
    return index
  }
  let index: InstanceType<typeof AccountIndex> | undefined
  await measure("load", async () => {
    index = await loaded()
  })
  await measure("load: settle", async () => index!.settle())
  const built = index!
  await measure("graph", async () => {
    while (built.buildStep()) await built.pause()
  })
  await measure("searches", () => new Promise((resolve) => setTimeout(resolve, 10_000)), built)
  const dir = mkdtempSync(join(tmpdir(), "umo-bench-stall-"))
  const graph = join(dir, "graph")
  let keys: Buffer = Buffer.alloc(0)
  await measure(
    "snapshot",
    async () => {
      const saving = built.saveGraph(graph)
      const chunks = built.graphChunks()
      keys = await encodeKeys(chunks)
      writeFileSync(join(dir, "keys"), keys)
      await saving
      const hash = createHash("sha256")
      await new Promise<void>((resolve, reject) =>
        createReadStream(graph)
          .on("data", (part) => hash.update(part))
          .on("error", reject)
          .on("end", () => resolve())
      )
    },
    built
  )
  const graphKeys = built.graphKeys
  built.close()
  let restarted: InstanceType<typeof AccountIndex> | undefined
  await measure("restart: load", async () => {
    restarted = await loaded()
    restarted.settle()
  })
  let kept = 0
  await measure("restart: graph from the snapshot", async () => {
    kept = await restarted!.adoptGraph(graph, graphKeys, (key) => decodeKey(keys, key))
  })
  await measure("restart: searches", () => new Promise((resolve) => setTimeout(resolve, 10_000)), restarted)
  rmSync(dir, { recursive: true, force: true })
  return { phases, graph_keys: graphKeys, kept, longest_page_ms: Math.round(longestPageMs * 10) / 10 }
}

/** Each part's work; the index's answers its estimate of itself in kB. */
const parts: Record<PartName, () => Promise<unknown>> = {
  baseline: async () => undefined,
  // PGlite on its thread (PgliteWorker.js, as PgliteSqlClient starts it), opened with pgvector on
  // the data directory given (new or made by an earlier run), then one query.
  pglite: async () => {
    const dir = request.dataDir ?? mkdtempSync(join(tmpdir(), "umo-bench-memory-pglite-"))
    const worker = new Worker(new URL(dist("plugins/dist/storage/PgliteWorker.js")))
    const ask = (message: object) =>
      new Promise<void>((resolve, reject) => {
        worker.once("message", (answer: { ok: boolean; error?: { message: string } }) =>
          answer.ok ? resolve() : reject(new Error(answer.error?.message))
        )
        worker.postMessage(message)
      })
    await ask({ id: 1, op: "open", dataDir: dir })
    await ask({
      id: 2,
      op: "query",
      sql: "SELECT '[1,2,3]'::vector <=> '[3,2,1]'",
      params: [],
      rowMode: "object"
    })
    if (request.dataDir === undefined)
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  },
  // The embedding model on its thread (OnnxEmbedderWorker.js in a piscina pool of one, the
  // workerData TransformersEmbedder gives it): loaded, then one short text.
  embedder: async () => {
    const embed = await pool(
      "plugins/dist/embedders/TransformersEmbedder.js",
      "OnnxEmbedderWorker",
      embedderSetup
    )
    await embed.run({ texts: [] })
    await embed.run({ texts: [texts[0]] })
  },
  // 32 texts of 1,000 characters one per call, as the server embeds with the int8 graph.
  "embedder-32-single": async () => {
    const embed = await pool(
      "plugins/dist/embedders/TransformersEmbedder.js",
      "OnnxEmbedderWorker",
      embedderSetup
    )
    for (const text of longTexts(32)) await embed.run({ texts: [text] })
  },
  // The same 32 texts in one call: the batch's activations at once (its peak).
  "embedder-32-batch": async () => {
    const embed = await pool(
      "plugins/dist/embedders/TransformersEmbedder.js",
      "OnnxEmbedderWorker",
      embedderSetup
    )
    await embed.run({ texts: longTexts(32) })
  },
  // The cross-encoder on its thread (CrossEncoderWorker.js, CrossEncoderReranker's workerData),
  // scoring a question against 20 passages.
  reranker: async () => {
    const score = await pool("plugins/dist/rerankers/CrossEncoderReranker.js", "CrossEncoderWorker", {
      modelsDir: join(request.root, "models"),
      model: "cross-encoder/ms-marco-MiniLM-L-12-v2",
      maxTokens: 256
    })
    await score.run({ query: "Where did Caroline move from?", passages: texts.slice(0, 20) })
  },
  // The update judge on its thread (LearnedJudgeWorker.js, the workerData LearnedJudge gives it),
  // scoring three pairs of texts one at a time, as capture asks it about a memory's nearest three.
  judge: async () => {
    const judged = await pool("plugins/dist/judges/LearnedJudge.js", "LearnedJudgeWorker", {
      modelsDir: join(request.root, "models"),
      model: "update-judge",
      maxTokens: 128,
      dtype: "int8"
    })
    await judged.run({ pairs: [0, 1, 2].map((i) => ({ earlier: texts[i], newer: texts[i + 3] })) })
  },
  // The language engines and fact patterns, loaded on this thread as the server's start does.
  nlp: async () => {
    const { warmUp } = (await import(
      dist("plugins/dist/nlp/WarmUp.js")
    )) as typeof import("../../../plugins/src/nlp/WarmUp.js")
    warmUp()
  },
  // The in-process search index of one account holding `memories`, its HNSW graph built, searched once.
  index: async () => {
    const { AccountIndex } = (await import(
      dist("plugins/dist/search/AccountIndex.js")
    )) as typeof import("../../../plugins/src/search/AccountIndex.js")
    // Its float32 rows in a file, where the server keeps them by default (ExactRows.defaultRowsDir).
    const index = new AccountIndex(768, join(tmpdir(), "umo-index"))
    const random = seeded(7)
    for (let i = 0; i < (request.memories ?? 0); i++) index.add(syntheticRow(i, random), { bulk: true })
    index.settle()
    index.buildAll()
    const query = syntheticRow(-1, random).vectors[0]!
    index.searchVector(Array.from(query), { limit: 10 })
    index.searchText(["caroline", "move"], { limit: 10 })
    // Kept reachable until the figures are read: a collected index would measure nothing.
    ;(globalThis as { keptIndex?: unknown }).keptIndex = index
    return Math.round(AccountIndex.held([index]) / 1024)
  },
  stall
}

const field = (status: string, name: string) =>
  Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)

const started = performance.now()
const estimate = await parts[request.part]()
const seconds = Math.round((performance.now() - started) / 100) / 10
// Settled: threads that finish loading after the call, allocations returned to the system (PGlite's
// thread gives back 80-250 MB some seconds after it opens: 3 s was not always enough).
await new Promise((resolve) => setTimeout(resolve, request.settleSeconds * 1000))
const status = readFileSync("/proc/self/status", "utf8")
globalThis.gc?.()
await new Promise((resolve) => setTimeout(resolve, 500))
const usage = process.memoryUsage()
const figures: PartFigures = {
  rss_kb: field(status, "VmRSS"),
  peak_rss_kb: field(status, "VmHWM"),
  rss_anon_kb: field(status, "RssAnon"),
  rss_file_kb: field(status, "RssFile"),
  threads: field(status, "Threads"),
  rss_after_gc_kb: field(readFileSync("/proc/self/status", "utf8"), "VmRSS"),
  heap_used_kb: Math.round(usage.heapUsed / 1024),
  heap_total_kb: Math.round(usage.heapTotal / 1024),
  external_kb: Math.round(usage.external / 1024),
  seconds,
  ...(typeof estimate === "number" ? { estimate_kb: estimate } : {}),
  ...(typeof estimate === "object" && estimate !== null ? { detail: estimate } : {})
}
console.log(JSON.stringify(figures))
// Pools and the PGlite thread would keep the process alive.
process.exit(0)
