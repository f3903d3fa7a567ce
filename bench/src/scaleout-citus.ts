/**
 * Scale-out on Citus (`npm run bench:scaleout -- --citus`), measured at the storage layer: the
 * embedder is not what scales with workers, and on a small machine it would dominate every figure.
 *
 * A pool of real UMOs is made once through the real pipeline (`defaultPlugins()`): LoCoMo texts
 * (two turns each, `ScaleCorpus`) with vectors of the deployment's embedder (all-mpnet-base-v2 by
 * default, 768 dimensions; the turns are embedded once and cached in `.cache/bench`). Every capture
 * then stores a copy under a new id (`recapture`): one `MemoryStore.insert`, which appends to the
 * account's signed hash chain under its lock — the database's work of a capture, without the model.
 *
 * 1. Throughput and search by number of workers, in one run: single-node PostgreSQL (a fresh
 *    database on the machine's server), then Citus with 1, 2 and 3 workers (a fresh cluster each,
 *    `scripts/citus-cluster.sh up`, fsync on like the single node). N memories over A accounts from
 *    C concurrent writers; captures/s and capture latency; then `searchVector` and `searchText` of
 *    the SQL search (`SqlMemorySearch.makeSearch`: the database answers, not the in-process index)
 *    on random accounts, one at a time (latency) and C at a time (throughput). The CPU time of every
 *    PostgreSQL process (each server's postmaster and its children, from /proc) and of this Node
 *    process is taken around each phase, with the machine's busy time (/proc/stat): on one machine
 *    all the workers share its cores, and the figures say how busy they were.
 * 2. Rebalance under load, on the 2-worker cluster with its data: writers capture into up to 200
 *    accounts, each capture with a recorded id; `add-worker`, then `citus_rebalance_start` with
 *    `force_logical` (`block_writes` if that fails, and the results say so), polled until done, and
 *    writing goes on for a few seconds after. A capture that errs is counted, looked up by id (it
 *    may have been stored), and retried with the same id until stored. Then every acknowledged id
 *    must be readable, none stored twice, and every touched account's chain must audit as valid.
 */
import { execFile, execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import {
  AccountStore,
  Embedder,
  Ledger,
  type MemorySearchShape,
  MemoryStore,
  makeEmbedder,
  type Umo
} from "@umo/core"
import { Database, normalizeText, SigningKey, StorageStack } from "@umo/plugins"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { SqlClient } from "effect/sql"
import { makeSearch } from "../../plugins/src/storage/SqlMemorySearch.js"
import { citusUnavailable, field } from "../../plugins/test/storage/CitusCluster.js"
import { pipeline, recapture } from "../../plugins/test/storage/fixtures.js"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, progress } from "./support/Cli.js"
import { seeded } from "./support/Corpus.js"
import * as ScaleCorpus from "./support/ScaleCorpus.js"
import { percentile, round1 } from "./support/Stats.js"

export { citusUnavailable }

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// Results

export interface Latency {
  readonly count: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
}

/** CPU seconds spent during one phase, from /proc. */
export interface CpuFigures {
  readonly wall_seconds: number
  /** Every PostgreSQL process of the configuration (the coordinator's and the workers'). */
  readonly postgres_seconds: number
  /** The same, server by server: the coordinator (or the single node) first, then each worker. */
  readonly postgres_by_server: ReadonlyArray<number>
  /** The same by kind of process (every server together). */
  readonly postgres_by_kind: PostgresKinds
  /** This Node process (the writers, the storage layer: hashing, signing, the SQL client). */
  readonly node_seconds: number
  /** The machine's busy time, every process (from /proc/stat). */
  readonly machine_busy_seconds: number
  /** Busy time of neither: anything else running on the machine meanwhile. */
  readonly other_seconds: number
  /** Busy time over wall time: cores kept busy on average (out of `cores`). */
  readonly cores_busy: number
  readonly cores: number
}

/** PostgreSQL CPU seconds by kind of process. */
export interface PostgresKinds {
  /** Sessions: UMO's, and on Citus workers the coordinator's connections to them. */
  readonly client_backends: number
  readonly autovacuum: number
  /** walwriter, checkpointer, background writer. */
  readonly wal_and_checkpoints: number
  /** walsenders and logical replication workers (the shard moves). */
  readonly replication: number
  /** Citus's maintenance daemon and background task executors, parallel workers, the rest. */
  readonly other: number
  /** Processes that lived between two samples, and the postmasters themselves. */
  readonly unattributed: number
}

export interface SearchFigures {
  readonly queries: number
  /** One query at a time. */
  readonly sequential_ms: Latency
  /** `writers` queries in flight. */
  readonly concurrent_per_second: number
  readonly concurrent_ms: Latency
  /** Queries that found nothing (a sanity check: the accounts hold memories). */
  readonly empty: number
}

export interface CitusConfiguration {
  /** `single node` or `citus N workers`. */
  readonly database: string
  /** 0 for the single node. */
  readonly workers: number
  readonly memories: number
  readonly accounts: number
  readonly writers: number
  /** Start-up of the storage layer on a fresh database (migrations; on Citus, distribution too). */
  readonly startup_seconds: number
  /** Memories loaded before the timed captures (`insertMany`, 100 of an account a call), and how long it took. */
  readonly preloaded?: number
  readonly preload_seconds?: number
  /** The timed captures: one `insert` each (their memories come after the preloaded ones). */
  readonly timed?: number
  readonly load_seconds: number
  readonly captures_per_second: number
  readonly capture_ms: Latency
  /** Captures that erred (then looked up by id, and retried unless stored). */
  readonly capture_errors: number
  /** Memories in the database after the load (must equal `memories`). */
  readonly stored: number
  readonly search_vector: SearchFigures
  readonly search_text: SearchFigures
  readonly cpu: { readonly load: CpuFigures; readonly search: CpuFigures }
  /**
   * `ANALYZE` rounds of the search tables during the load (UMO's TableStatistics: once the writes
   * since the last pass 50 + 10% of the memories in `pg_class.reltuples`; on Citus each round
   * fans out to every shard), and what one round costs on the loaded tables, run once after it.
   */
  readonly analyses_during_load?: number
  readonly one_analysis?: { readonly wall_seconds: number; readonly postgres_seconds: number }
  /** Other work seen on the machine during the configuration (vitest, other benchmarks, a UMO server). */
  readonly others_seen: ReadonlyArray<string>
}

export interface RebalancePhase {
  readonly phase: "before" | "adding the worker" | "moving shards" | "after"
  readonly seconds: number
  readonly captures: number
  readonly capture_ms: Latency
  readonly errors: number
}

export interface RebalanceRun {
  /** `force_logical`, or `block_writes` when logical replication failed (`logical_error` says why). */
  readonly transfer_mode: string
  readonly logical_error?: string | undefined
  readonly accounts: number
  readonly writers: number
  readonly phases: ReadonlyArray<RebalancePhase>
  readonly add_worker_ms: number
  readonly rebalance_ms: number
  /** CPU from the rebalance's start to its end (the new worker included). */
  readonly cpu_while_moving?: CpuFigures | undefined
  /** Shard groups (the colocated shards of one hash range) moved, and shard placements (every table's). */
  readonly shard_groups_moved: number
  readonly shard_placements_moved: number
  readonly shard_groups_by_worker_after: ReadonlyArray<number>
  readonly captures_acknowledged: number
  readonly acknowledged_missing: number
  readonly stored_twice: number
  readonly capture_errors: number
  /** Of the captures that erred: found stored when looked up by id (so not retried). */
  readonly errored_but_stored: number
  readonly retries: number
  /** Each distinct error message (shortened) and how often it came. */
  readonly error_messages: Readonly<Record<string, number>>
  readonly chains_audited: number
  readonly chains_valid: boolean
  /** Chain entries of the touched accounts against their memories (equal when every capture is chained). */
  readonly chain_entries: number
  readonly memories_in_touched_accounts: number
  readonly others_seen: ReadonlyArray<string>
}

export interface CitusPart {
  /** What made the pool and what the store is pinned to. */
  readonly embedder: string
  readonly pool: number
  readonly pool_seconds: number
  readonly citus_version: string
  readonly postgres_version: string
  /** The servers' settings that matter here (the single node's and the Citus nodes'). */
  readonly settings: Readonly<Record<string, string>>
  readonly sql_client_connections: number
  readonly configurations: ReadonlyArray<CitusConfiguration>
  readonly rebalance?: RebalanceRun | undefined
  readonly notes: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------
// CPU time from /proc

const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** utime + stime + cutime + cstime of a process, in ticks (0 when it is gone). */
const processTicks = (pid: number): { ppid: number; ticks: number } | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // fields[0] is the state (field 3): utime is field 14, so fields[11]; ppid is field 4, fields[1].
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    return { ppid: Number(fields[1]), ticks }
  } catch {
    return undefined
  }
}

/**
 * A server's CPU seconds so far: its postmaster's own and reaped children's time, plus the time
 * of its live children (backends, background workers). A backend that ends between two samples
 * moves from the second sum to the first: the total only grows.
 */
const serverSeconds = (postmasters: ReadonlyArray<number>): Array<number> => {
  const totals = postmasters.map((pid) => processTicks(pid)?.ticks ?? 0)
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const p = processTicks(Number(entry))
    if (p === undefined) continue
    const at = postmasters.indexOf(p.ppid)
    if (at >= 0) totals[at]! += p.ticks
  }
  return totals.map((t) => t / clockTicks)
}

/** The machine's busy seconds (every core) so far: /proc/stat's first line less idle and iowait. */
const machineBusySeconds = () => {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number)
  const total = fields.reduce((a, b) => a + b, 0)
  return (total - fields[3]! - fields[4]!) / clockTicks
}

const postmasterOf = (dataDir: string) =>
  Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])

/** Other test runs, benchmarks and servers on the machine now (vitest, bench/src/*.ts, a UMO server). */
const othersRunning = (): Array<string> => {
  let listed = ""
  try {
    listed = execFileSync("pgrep", [
      "-af",
      "vitest|bench/src/|server/src/main.ts|server/dist/main.js"
    ]).toString()
  } catch {
    return []
  }
  const found = new Set<string>()
  for (const line of listed.split("\n")) {
    if (line.includes("scaleout.ts")) continue
    const name = line.match(/vitest|bench\/src\/[\w-]+\.ts|server\/(?:src|dist)\/main\.[jt]s/)?.[0]
    if (name !== undefined) found.add(name)
  }
  return [...found]
}

/** What a PostgreSQL process is, from its title. */
const kindOf = (pid: number): keyof PostgresKinds => {
  let title = ""
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ")
  } catch {
    return "other"
  }
  if (/autovacuum/.test(title)) return "autovacuum"
  if (/walwriter|checkpointer|background writer/.test(title)) return "wal_and_checkpoints"
  if (/walsender|logical replication|wal receiver/.test(title)) return "replication"
  if (/\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title)) return "client_backends"
  return "other"
}

/**
 * Starts a CPU measurement of the servers whose data directories are given; the function it
 * returns stops it and gives the figures. The servers' processes are sampled every half second to
 * split their time by kind; a process that lived less than that between two samples is counted in
 * the total only (`unattributed`).
 */
const cpuMeter = (dataDirs: ReadonlyArray<string>, cores: number) => {
  const postmasters = dataDirs.map(postmasterOf)
  const server0 = serverSeconds(postmasters)
  const node0 = process.cpuUsage()
  const busy0 = machineBusySeconds()
  const wall0 = performance.now()
  const seen = new Map<number, { first: number; last: number; kind: keyof PostgresKinds }>()
  const sample = (initial: boolean) => {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      const pid = Number(entry)
      const p = processTicks(pid)
      if (p === undefined || !postmasters.includes(p.ppid)) continue
      const known = seen.get(pid)
      if (known !== undefined) known.last = p.ticks
      // A process first seen after the start began during the phase: all its time is the phase's.
      else seen.set(pid, { first: initial ? p.ticks : 0, last: p.ticks, kind: kindOf(pid) })
    }
  }
  sample(true)
  const sampler = setInterval(() => sample(false), 500)
  return (): CpuFigures => {
    clearInterval(sampler)
    sample(false)
    const server = serverSeconds(postmasters).map((s, i) => s - server0[i]!)
    const nodeUsage = process.cpuUsage(node0)
    const node = (nodeUsage.user + nodeUsage.system) / 1e6
    const busy = machineBusySeconds() - busy0
    const wall = (performance.now() - wall0) / 1000
    const postgres = server.reduce((a, b) => a + b, 0)
    const kinds: { -readonly [K in keyof PostgresKinds]: number } = {
      client_backends: 0,
      autovacuum: 0,
      wal_and_checkpoints: 0,
      replication: 0,
      other: 0,
      unattributed: 0
    }
    for (const p of seen.values()) kinds[p.kind] += (p.last - p.first) / clockTicks
    kinds.unattributed = Math.max(0, postgres - Object.values(kinds).reduce((a, b) => a + b, 0))
    for (const k of Object.keys(kinds) as Array<keyof PostgresKinds>) kinds[k] = round1(kinds[k])
    return {
      wall_seconds: round1(wall),
      postgres_seconds: round1(postgres),
      postgres_by_server: server.map(round1),
      postgres_by_kind: kinds,
      node_seconds: round1(node),
      machine_busy_seconds: round1(busy),
      other_seconds: round1(Math.max(0, busy - postgres - node)),
      cores_busy: Math.round((busy / wall) * 100) / 100,
      cores
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Servers

const psql = async (url: string, statement: string) =>
  (
    await run("psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement], {
      maxBuffer: 1 << 24
    })
  ).stdout.trim()

interface Target {
  readonly name: string
  readonly workers: number
  readonly url: string
  /** Data directories: the coordinator's (or the single node's) first. */
  readonly dataDirs: () => ReadonlyArray<string>
  readonly addWorker?: () => Promise<void>
  readonly down: () => Promise<void>
}

const singleDatabase = "umo_bench_citus_single"

/** The tables UMO's TableStatistics analyzes together. */
const searchTables = "memories, memory_chunks, search_terms, search_postings"

/** How often `memories` (the coordinator's table on Citus, where a distributed ANALYZE counts too) was analyzed. */
const analyzeCount = async (url: string) =>
  Number(
    await psql(
      url,
      "SELECT coalesce(max(analyze_count), 0) FROM pg_stat_user_tables WHERE relid = 'memories'::regclass"
    )
  )

/** A fresh database on the machine's PostgreSQL (UMO_BENCH_CITUS_SINGLE_ADMIN_URL, default 127.0.0.1:5432). */
const singleNode = async (): Promise<Target> => {
  const admin =
    process.env["UMO_BENCH_CITUS_SINGLE_ADMIN_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
  await psql(admin, `DROP DATABASE IF EXISTS ${singleDatabase} WITH (FORCE)`)
  await psql(admin, `CREATE DATABASE ${singleDatabase}`)
  const url = new URL(admin)
  url.pathname = `/${singleDatabase}`
  await psql(url.toString(), "CREATE EXTENSION IF NOT EXISTS vector")
  const dataDir = await psql(admin, "SHOW data_directory")
  return {
    name: "single node",
    workers: 0,
    url: url.toString(),
    dataDirs: () => [dataDir],
    down: async () => {
      await psql(admin, `DROP DATABASE IF EXISTS ${singleDatabase} WITH (FORCE)`)
    }
  }
}

/**
 * A fresh Citus cluster in the bench's own directory (UMO_CITUS_CLUSTER_DIR), fsync on, with
 * `matching` set on every node (the single node's settings that the script's defaults differ from).
 */
const citusNodes = async (
  root: string,
  workers: number,
  matching: Readonly<Record<string, string>>
): Promise<Target> => {
  const dir = process.env["UMO_BENCH_CITUS_CLUSTER_DIR"] ?? join(root, ".cache", "citus-bench")
  const env = { ...process.env, UMO_CITUS_CLUSTER_DIR: dir }
  const script = async (...args: ReadonlyArray<string>) =>
    (await run("bash", [join(root, "scripts", "citus-cluster.sh"), ...args], { env, maxBuffer: 1 << 24 }))
      .stdout
  const output = await script("up", "--workers", String(workers))
  const url = field(output, "COORDINATOR_URL")
  const configure = async (port: string) => {
    const node = new URL(url)
    node.port = port
    for (const [name, value] of Object.entries(matching))
      await psql(node.toString(), `ALTER SYSTEM SET ${name} = '${value}'`)
    await psql(node.toString(), "SELECT pg_reload_conf()")
  }
  for (const port of [field(output, "COORDINATOR_PORT"), ...field(output, "WORKER_PORTS").split(",")])
    await configure(port)
  return {
    name: `citus ${workers} worker${workers > 1 ? "s" : ""}`,
    workers,
    url,
    dataDirs: () =>
      readdirSync(dir)
        .filter((n) => /^node\d+$/.test(n))
        .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
        .map((n) => join(dir, n, "data")),
    addWorker: async () => {
      await configure(field(await script("add-worker"), "WORKER_PORT"))
    },
    down: async () => {
      if (process.env["UMO_CITUS_KEEP"] !== "1") await script("down")
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The pool of UMOs

const makePool = async (root: string, quick: boolean, size: number, queries: number) => {
  const started = performance.now()
  const probe = await ScaleCorpus.make({ root, quick })
  const asked = [...new Set(probe.questions.map((q) => q.question))]
  const random = seeded(11)
  for (let i = asked.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[asked[i], asked[j]] = [asked[j]!, asked[i]!]
  }
  // Embedding the questions is the real model's only work: the memories' vectors are cached.
  const corpus = await ScaleCorpus.make({ root, quick, queries: asked.slice(0, queries) })
  corpus.synthesize(size)
  const vectorOf = new Map<string, ReadonlyArray<number>>()
  for (let i = 0; i < size; i++) {
    const v = Array.from(corpus.vector(i))
    vectorOf.set(corpus.text(i), v)
    vectorOf.set(normalizeText(corpus.text(i)), v)
  }
  // The real model's id and size with the corpus's vectors: the store is pinned to what it would be.
  const embedder = Layer.succeed(Embedder)(
    makeEmbedder({
      model: corpus.model,
      batchSize: 512,
      embedBatch: (batch) =>
        Effect.sync(() =>
          batch.map((t) => {
            const v = vectorOf.get(t)
            if (v === undefined) throw new Error(`the pool has no vector for ${JSON.stringify(t)}`)
            return [...v]
          })
        )
    })
  )
  const umos: ReadonlyArray<Umo> = await Effect.runPromise(
    Effect.forEach(
      Array.from({ length: size }, (_, i) => i),
      (i) => {
        if (i % 100 === 0) progress(`citus: making the pool: ${i}/${size} memories through the pipeline`)
        return pipeline.process({ content: corpus.text(i), source: "bench" })
      },
      { concurrency: 8 }
    ).pipe(Effect.provide(embedder))
  )
  vectorOf.clear()
  return {
    umos,
    embedder,
    model: corpus.model,
    queries: corpus.queryVectors,
    seconds: (performance.now() - started) / 1000
  }
}

// ---------------------------------------------------------------------------------------------
// Captures and searches

const latency = (samples: ReadonlyArray<number>): Latency => {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: round1(percentile(sorted, 0.5)),
    p95: round1(percentile(sorted, 0.95)),
    p99: round1(percentile(sorted, 0.99)),
    max: round1(sorted[sorted.length - 1] ?? 0)
  }
}

/** A failure's message, with its SQL cause where there is one, on one line. */
const messageOf = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause) as { message?: string; cause?: { message?: string } }
  const text = `${error?.message ?? String(error)}${error?.cause?.message && !error.message?.includes(error.cause.message) ? ` (${error.cause.message})` : ""}`
  return text.replace(/\s+/g, " ").slice(0, 300)
}

/** Shortened for counting: ids, numbers and quoted names made generic. */
const errorKind = (message: string) =>
  message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\d+/g, "<n>")
    .slice(0, 200)

type Services = MemoryStore | AccountStore | Ledger | SqlClient.SqlClient
/** The storage stack on one database: its runtime and the services the bench calls. */
interface Stack {
  readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  readonly store: MemoryStore["Service"]
  readonly accounts: AccountStore["Service"]
  readonly ledger: Ledger["Service"]
  readonly sql: SqlClient.SqlClient
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}

interface Captured {
  readonly ms: number
  readonly errors: ReadonlyArray<string>
  /** After an error, the lookup by id found it stored. */
  readonly storedAfterError: boolean
  readonly retries: number
}

/**
 * One capture: `insert`; on an error, the memory is looked up by id — stored despite the error,
 * or retried (same id) 200 ms later, up to a minute. The latency runs from the first attempt.
 */
const capture = async (stack: Stack, account: string, umo: Umo): Promise<Captured> => {
  const started = performance.now()
  const errors: Array<string> = []
  let retries = 0
  for (;;) {
    const exit = await stack.runtime.runPromiseExit(stack.store.insert(account, umo))
    if (Exit.isSuccess(exit))
      return { ms: performance.now() - started, errors, storedAfterError: false, retries }
    errors.push(messageOf(exit.cause))
    if (errors.length > 300) throw new Error(`a capture failed for a minute: ${errors.at(-1)}`)
    await sleep(200)
    const found = await stack.runtime.runPromiseExit(stack.store.get(account, umo.umo_id))
    if (Exit.isSuccess(found) && Option.isSome(found.value))
      return { ms: performance.now() - started, errors, storedAfterError: true, retries }
    retries += 1
  }
}

/** Runs `count` jobs on `writers` concurrent workers, in order of index. */
const onWriters = async (count: number, writers: number, job: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let i = next++; i < count; i = next++) await job(i)
    })
  )
}

const searchRun = async (
  stack: Stack,
  search: MemorySearchShape,
  accounts: ReadonlyArray<string>,
  queries: ReadonlyArray<{ readonly text: string; readonly vector: ReadonlyArray<number> }>,
  kind: "vector" | "text",
  concurrency: number,
  seed: number
) => {
  const random = seeded(seed)
  const plan = queries.map((q) => ({ q, account: accounts[Math.floor(random() * accounts.length)]! }))
  const ask = async ({ q, account }: (typeof plan)[number]) => {
    const t = performance.now()
    const found = await stack.run(
      kind === "vector"
        ? search.searchVector(account, q.vector, { limit: 10 })
        : search.searchText(account, q.text, { limit: 10 })
    )
    return { ms: performance.now() - t, empty: found.length === 0 }
  }
  const sequential: Array<number> = []
  let empty = 0
  for (const item of plan) {
    const r = await ask(item)
    sequential.push(r.ms)
    if (r.empty) empty += 1
  }
  const concurrent: Array<number> = []
  const started = performance.now()
  await onWriters(plan.length, concurrency, async (i) => {
    concurrent.push((await ask(plan[(i * 7 + 3) % plan.length]!)).ms)
  })
  const seconds = (performance.now() - started) / 1000
  return {
    queries: plan.length,
    sequential_ms: latency(sequential),
    concurrent_per_second: round1(plan.length / seconds),
    concurrent_ms: latency(concurrent),
    empty
  } satisfies SearchFigures
}

// ---------------------------------------------------------------------------------------------
// One configuration

interface Sizes {
  readonly memories: number
  /** Of `memories`, those captured one by one and timed; the rest are loaded first, in batches. */
  readonly timed: number
  readonly accounts: number
  readonly writers: number
  readonly queries: number
  readonly poolSize: number
  readonly rebalanceAccounts: number
  readonly beforeSeconds: number
  readonly afterSeconds: number
}

type Pool = Awaited<ReturnType<typeof makePool>>

const storage = (url: string, pool: Pool) =>
  StorageStack.layer({
    database: Database.postgres(url),
    signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: benchSigningKey() }),
    embedder: pool.embedder,
    // Nothing searches through the in-process index (the SQL search is measured): it loads nothing.
    searchIndex: { preload: false }
  })

/** Builds the storage stack on `url` (migrating; on Citus, distributing) and takes its services. */
const openStack = async (url: string, pool: Pool): Promise<Stack> => {
  const runtime = ManagedRuntime.make(storage(url, pool))
  const services = await runtime.runPromise(
    Effect.gen(function* () {
      return {
        store: yield* MemoryStore,
        accounts: yield* AccountStore,
        ledger: yield* Ledger,
        sql: yield* SqlClient.SqlClient
      }
    })
  )
  return { runtime, ...services, run: (effect) => runtime.runPromise(effect) }
}

/** Account a's k-th memory: a window of the pool of its own, so an account holds distinct memories. */
const umoFor = (pool: Pool, account: number, k: number) =>
  recapture(pool.umos[(account * 101 + k) % pool.umos.length]!)

const configuration = async (
  target: Target,
  pool: Pool,
  sizes: Sizes,
  cores: number,
  rebalance?: (stack: Stack, accounts: ReadonlyArray<string>) => Promise<RebalanceRun>
) => {
  const others = new Set(othersRunning())
  const lookAround = () => {
    for (const name of othersRunning()) others.add(name)
  }
  const startup = performance.now()
  const stack = await openStack(target.url, pool)
  try {
    const names = Array.from({ length: sizes.accounts }, (_, i) => `citus-bench-${i}`)
    const accounts = await stack.run(
      Effect.forEach(names, (name) => Effect.map(stack.accounts.ensureAccount(name), (a) => a.account_id), {
        concurrency: 4
      })
    )
    const startupSeconds = (performance.now() - startup) / 1000

    // The preload: every account's first memories, 100 an `insertMany`, 4 accounts at a time —
    // the account's size the timed captures and the searches meet, without timing each.
    const timed = Math.min(sizes.timed, sizes.memories)
    const preloaded = sizes.memories - timed
    const preloadStarted = performance.now()
    let loaded = 0
    const perAccount = (a: number) =>
      Math.floor(preloaded / sizes.accounts) + (a < preloaded % sizes.accounts ? 1 : 0)
    await onWriters(sizes.accounts, 4, async (a) => {
      const count = perAccount(a)
      for (let k = 0; k < count; k += 100) {
        const writes = Array.from({ length: Math.min(100, count - k) }, (_, j) => ({
          umo: umoFor(pool, a, k + j),
          supersedes: [],
          facts: [],
          inferUpdates: false
        }))
        await stack.run(stack.store.insertMany(accounts[a]!, writes))
        loaded += writes.length
      }
      progress(
        `citus: ${target.name}: preloaded ${loaded.toLocaleString("en")}/${preloaded.toLocaleString("en")}`
      )
    })
    const preloadSeconds = (performance.now() - preloadStarted) / 1000

    // The timed load: capture i goes to account i mod A, so consecutive captures lock different chains.
    const latencies: Array<number> = []
    let errors = 0
    let done = 0
    const analysesBefore = await analyzeCount(target.url)
    const meter = cpuMeter(target.dataDirs(), cores)
    const started = performance.now()
    const ticker = setInterval(() => {
      lookAround()
      const rate = done / ((performance.now() - started) / 1000)
      progress(
        `citus: ${target.name}: captured ${done.toLocaleString("en")}/${timed.toLocaleString("en")}, ${Math.round(rate)}/s, ${Math.round((timed - done) / rate)} s to go`
      )
    }, 1000)
    try {
      await onWriters(timed, sizes.writers, async (i) => {
        const a = i % sizes.accounts
        const k = perAccount(a) + Math.floor(i / sizes.accounts)
        const result = await capture(stack, accounts[a]!, umoFor(pool, a, k))
        latencies.push(result.ms)
        errors += result.errors.length
        done += 1
      })
    } finally {
      clearInterval(ticker)
    }
    const loadSeconds = (performance.now() - started) / 1000
    const loadCpu = meter()
    const [count] = await stack.run(stack.sql<{ n: string }>`SELECT count(*)::text AS n FROM memories`)
    // The analyses UMO's TableStatistics ran meanwhile (its sessions report their counts within a
    // second), and what one costs now, on the loaded tables.
    await sleep(2000)
    const analyses = (await analyzeCount(target.url)) - analysesBefore
    const analyzeMeter = cpuMeter(target.dataDirs(), cores)
    await psql(target.url, `ANALYZE ${searchTables}`)
    const analyzeCpu = analyzeMeter()

    progress(`citus: ${target.name}: searching`)
    const search = makeSearch(stack.sql)
    const queries = pool.queries.slice(0, sizes.queries)
    const searchMeter = cpuMeter(target.dataDirs(), cores)
    const searchVector = await searchRun(stack, search, accounts, queries, "vector", sizes.writers, 3)
    const searchText = await searchRun(stack, search, accounts, queries, "text", sizes.writers, 5)
    const searchCpu = searchMeter()
    lookAround()

    const row: CitusConfiguration = {
      database: target.name,
      workers: target.workers,
      memories: sizes.memories,
      accounts: sizes.accounts,
      writers: sizes.writers,
      startup_seconds: round1(startupSeconds),
      preloaded,
      preload_seconds: round1(preloadSeconds),
      timed,
      load_seconds: round1(loadSeconds),
      captures_per_second: round1(timed / loadSeconds),
      capture_ms: latency(latencies),
      capture_errors: errors,
      stored: Number(count?.n ?? 0),
      search_vector: searchVector,
      search_text: searchText,
      cpu: { load: loadCpu, search: searchCpu },
      analyses_during_load: analyses,
      one_analysis: { wall_seconds: analyzeCpu.wall_seconds, postgres_seconds: analyzeCpu.postgres_seconds },
      others_seen: [...others]
    }
    const moved = rebalance === undefined ? undefined : await rebalance(stack, accounts)
    return { row, rebalance: moved }
  } finally {
    await stack.runtime.dispose()
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Rebalance under load

const rebalanceUnderLoad = async (
  target: Target,
  pool: Pool,
  sizes: Sizes,
  stack: Stack,
  allAccounts: ReadonlyArray<string>
): Promise<RebalanceRun> => {
  const others = new Set(othersRunning())
  const lookAround = () => {
    for (const name of othersRunning()) others.add(name)
  }
  const accounts = allAccounts.slice(0, Math.min(sizes.rebalanceAccounts, allAccounts.length))
  const { sql } = stack
  const query = <A extends object>(statement: Effect.Effect<ReadonlyArray<A>, unknown>) =>
    stack.run(statement)
  const memoriesOf = async () =>
    new Map(
      (
        await query(sql<{ account_id: string; n: string; distinct_ids: string }>`
          SELECT account_id::text AS account_id, count(*)::text AS n, count(DISTINCT umo_id)::text AS distinct_ids
          FROM memories WHERE account_id IN ${sql.in(accounts)} GROUP BY account_id`)
      ).map((r) => [r.account_id, { n: Number(r.n), distinct: Number(r.distinct_ids) }])
    )
  const placements = async () =>
    new Map(
      (
        await query(sql<{ shardid: string; nodeport: number; relation: string }>`
          SELECT p.shardid::text AS shardid, n.nodeport, s.logicalrelid::regclass::text AS relation
          FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) JOIN pg_dist_shard s USING (shardid)
          JOIN pg_dist_partition d ON d.logicalrelid = s.logicalrelid AND d.partmethod = 'h'`)
      ).map((r) => [r.shardid, { port: r.nodeport, relation: r.relation }])
    )
  const before = await memoriesOf()
  const placedBefore = await placements()

  type Phase = RebalancePhase["phase"]
  let phase: Phase = "before"
  const phaseStarts = new Map<Phase, number>([["before", performance.now()]])
  interface Record {
    readonly account: string
    readonly id: string
    readonly phase: Phase
    result?: Captured
  }
  const records: Array<Record> = []
  let stop = false
  let n = 0
  const writer = async () => {
    while (!stop) {
      const i = n++
      const a = i % accounts.length
      const umo = umoFor(pool, a, 1_000 + Math.floor(i / accounts.length))
      const record: Record = { account: accounts[a]!, id: umo.umo_id, phase }
      records.push(record)
      record.result = await capture(stack, record.account, umo)
    }
  }
  const ticker = setInterval(() => {
    lookAround()
    progress(
      `citus: rebalance under load: ${phase}, ${records.filter((r) => r.result !== undefined).length} captures`
    )
  }, 1000)
  const writing = Promise.all(Array.from({ length: sizes.writers }, writer))
  let addWorkerMs = 0
  let rebalanceMs = 0
  let mode = "force_logical"
  let logicalError: string | undefined
  let moveCpu: CpuFigures | undefined
  try {
    await sleep(sizes.beforeSeconds * 1000)
    phase = "adding the worker"
    phaseStarts.set(phase, performance.now())
    await target.addWorker!()
    addWorkerMs = performance.now() - phaseStarts.get(phase)!
    phase = "moving shards"
    phaseStarts.set(phase, performance.now())
    const moveMeter = cpuMeter(target.dataDirs(), cpus().length)
    /** Starts a rebalance in `transferMode` and polls it; the failure's text, or undefined once done. */
    const rebalanceWith = async (transferMode: string): Promise<string | undefined> => {
      try {
        await psql(target.url, `SELECT citus_rebalance_start(shard_transfer_mode => '${transferMode}')`)
      } catch (error) {
        return String((error as { stderr?: string }).stderr ?? error).trim()
      }
      for (;;) {
        await sleep(500)
        const state = await psql(target.url, "SELECT state FROM citus_rebalance_status()")
        if (state === "finished") return undefined
        if (state === "failed" || state === "cancelled")
          return `${state}: ${await psql(target.url, "SELECT details::text FROM citus_rebalance_status()")}`
      }
    }
    logicalError = await rebalanceWith("force_logical")
    if (logicalError !== undefined) {
      mode = "block_writes"
      const blocked = await rebalanceWith("block_writes")
      if (blocked !== undefined) throw new Error(`the rebalance failed with block_writes too: ${blocked}`)
    }
    rebalanceMs = performance.now() - phaseStarts.get(phase)!
    moveCpu = moveMeter()
    phase = "after"
    phaseStarts.set(phase, performance.now())
    await sleep(sizes.afterSeconds * 1000)
  } finally {
    stop = true
    await writing
    clearInterval(ticker)
  }
  const ended = performance.now()

  progress("citus: rebalance under load: checking every capture")
  const acknowledged = records.filter((r) => r.result !== undefined && !r.result.storedAfterError)
  const stored = records.filter((r) => r.result !== undefined)
  let missing = 0
  await onWriters(acknowledged.length, 8, async (i) => {
    const r = acknowledged[i]!
    const found = await stack.run(stack.store.get(r.account, r.id))
    if (Option.isNone(found)) missing += 1
  })
  const after = await memoriesOf()
  let twice = 0
  for (const account of accounts) {
    const mine = stored.filter((r) => r.account === account).length
    const was = before.get(account)?.n ?? 0
    const now = after.get(account) ?? { n: 0, distinct: 0 }
    twice += Math.max(0, now.n - was - mine) + (now.n - now.distinct)
  }
  const audits = await stack.run(Effect.forEach(accounts, (a) => stack.ledger.audit(a), { concurrency: 4 }))
  const placedAfter = await placements()
  const movedShards = [...placedAfter].filter(([id, p]) => placedBefore.get(id)?.port !== p.port)
  const groups = [...placedAfter.values()].filter((p) => p.relation === "memories")
  const ports = [...new Set(groups.map((p) => p.port))].sort((a, b) => a - b)

  const phases = (["before", "adding the worker", "moving shards", "after"] as const).map((p, i, all) => {
    const mine = records.filter((r) => r.phase === p && r.result !== undefined)
    const next = all[i + 1]
    return {
      phase: p,
      seconds: round1(((next === undefined ? ended : phaseStarts.get(next)!) - phaseStarts.get(p)!) / 1000),
      captures: mine.length,
      capture_ms: latency(mine.map((r) => r.result!.ms)),
      errors: mine.reduce((s, r) => s + r.result!.errors.length, 0)
    }
  })
  const messages: { [message: string]: number } = {}
  for (const r of stored)
    for (const e of r.result!.errors) messages[errorKind(e)] = (messages[errorKind(e)] ?? 0) + 1
  lookAround()
  return {
    transfer_mode: mode,
    ...(logicalError === undefined ? {} : { logical_error: logicalError.slice(0, 500) }),
    accounts: accounts.length,
    writers: sizes.writers,
    phases,
    add_worker_ms: Math.round(addWorkerMs),
    rebalance_ms: Math.round(rebalanceMs),
    cpu_while_moving: moveCpu,
    shard_groups_moved: movedShards.filter(([, p]) => p.relation === "memories").length,
    shard_placements_moved: movedShards.length,
    shard_groups_by_worker_after: ports.map((port) => groups.filter((p) => p.port === port).length),
    captures_acknowledged: acknowledged.length,
    acknowledged_missing: missing,
    stored_twice: twice,
    capture_errors: stored.reduce((s, r) => s + r.result!.errors.length, 0),
    errored_but_stored: stored.filter((r) => r.result!.storedAfterError).length,
    retries: stored.reduce((s, r) => s + r.result!.retries, 0),
    error_messages: messages,
    chains_audited: audits.length,
    chains_valid: audits.every((a) => a.valid),
    chain_entries: audits.reduce((s, a) => s + a.entries, 0),
    memories_in_touched_accounts: [...after.values()].reduce((s, a) => s + a.n, 0),
    others_seen: [...others]
  }
}

// ---------------------------------------------------------------------------------------------
// The part

const numberArgument = (name: string, fallback: number) => {
  const given = argument(name)
  if (given === undefined) return fallback
  const value = Number(given.replace(/_/g, ""))
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} wants a positive integer, not ${given}`)
  return value
}

/** Runs both parts; `--citus-memories`, `--citus-accounts`, `--citus-writers`, `--citus-queries` size them. */
export const runCitusPart = async (root: string, quick: boolean, cores: number): Promise<CitusPart> => {
  const sizes: Sizes = {
    memories: numberArgument("citus-memories", quick ? 10_000 : 100_000),
    timed: numberArgument("citus-timed", quick ? 10_000 : 10_000),
    accounts: numberArgument("citus-accounts", quick ? 100 : 1_000),
    writers: numberArgument("citus-writers", 16),
    queries: numberArgument("citus-queries", quick ? 200 : 500),
    poolSize: numberArgument("citus-pool", quick ? 1_000 : 5_000),
    rebalanceAccounts: 200,
    beforeSeconds: quick ? 5 : 20,
    afterSeconds: quick ? 5 : 10
  }
  const pool = await makePool(root, quick, sizes.poolSize, sizes.queries)
  const configurations: Array<CitusConfiguration> = []
  let rebalance: RebalanceRun | undefined
  const settings: { [name: string]: string } = {}
  let citusVersion = ""
  let postgresVersion = ""
  const shown = [
    "fsync",
    "synchronous_commit",
    "shared_buffers",
    "max_wal_size",
    "wal_level",
    "work_mem",
    "max_connections",
    "autovacuum"
  ]
  // The Citus nodes get the single node's autovacuum setting (off on a CI machine's server).
  const matching: { [name: string]: string } = {}
  // With --citus-wait-quiet M: before each configuration, up to M minutes for other work to end.
  const waitMinutes = Number(argument("citus-wait-quiet") ?? 0)
  for (const workers of [0, 1, 2, 3]) {
    for (let waited = 0; waited < waitMinutes * 60 && othersRunning().length > 0; waited += 10) {
      progress(`citus: waiting for ${othersRunning().join(", ")} to end (${waited} s)`)
      await sleep(10_000)
    }
    progress(`citus: starting ${workers === 0 ? "the single node" : `a cluster of ${workers} worker(s)`}`)
    const target = workers === 0 ? await singleNode() : await citusNodes(root, workers, matching)
    if (workers === 0) matching["autovacuum"] = await psql(target.url, "SHOW autovacuum")
    try {
      const read = await psql(
        target.url,
        `SELECT string_agg(name || '=' || current_setting(name), ';' ORDER BY name) FROM pg_settings
         WHERE name IN (${shown.map((s) => `'${s}'`).join(", ")})`
      )
      settings[workers === 0 ? "single node" : "citus nodes"] = read.replaceAll(";", ", ")
      postgresVersion = await psql(target.url, "SHOW server_version")
      if (workers > 0)
        citusVersion = await psql(target.url, "SELECT extversion FROM pg_extension WHERE extname = 'citus'")
      const done = await configuration(
        target,
        pool,
        sizes,
        cores,
        workers === 2
          ? (stack, accounts) => rebalanceUnderLoad(target, pool, sizes, stack, accounts)
          : undefined
      )
      configurations.push(done.row)
      rebalance = done.rebalance ?? rebalance
      const r = done.row
      process.stderr.write(
        `\ncitus: ${r.database}: ${r.captures_per_second} captures/s, p99 ${r.capture_ms.p99} ms; postgres ${r.cpu.load.postgres_seconds} s CPU, node ${r.cpu.load.node_seconds} s over ${r.cpu.load.wall_seconds} s\n`
      )
    } finally {
      await target.down()
    }
  }
  const notes: Array<string> = []
  const defaults = quick ? [10_000, 100] : [100_000, 1_000]
  if (sizes.memories !== defaults[0] || sizes.accounts !== defaults[1])
    notes.push(
      `Sized with --citus-memories and --citus-accounts: ${sizes.memories.toLocaleString("en")} captures over ${sizes.accounts.toLocaleString("en")} accounts (default ${defaults[0]!.toLocaleString("en")} over ${defaults[1]!.toLocaleString("en")}).`
    )
  const note = argument("citus-note")
  if (note !== undefined) notes.push(note)
  const overlaps = [
    ...configurations.map((c) => [c.database, c.others_seen] as const),
    ["the rebalance", rebalance?.others_seen ?? []] as const
  ].filter(([, seen]) => seen.length > 0)
  if (overlaps.length > 0)
    notes.push(
      `Other work ran on the machine during ${overlaps.map(([what, seen]) => `${what} (${seen.join(", ")})`).join("; ")}: its CPU is in the "other processes" column.`
    )
  return {
    embedder: `the real pipeline (defaultPlugins) over ${pool.umos.length.toLocaleString("en")} LoCoMo texts (two turns each), vectors of ${pool.model.id} (${pool.model.dimensions} dimensions; turns embedded once, cached); each capture stores a copy under a new id (recapture)`,
    pool: pool.umos.length,
    pool_seconds: round1(pool.seconds),
    citus_version: citusVersion,
    postgres_version: postgresVersion,
    settings,
    sql_client_connections: 10,
    configurations,
    rebalance,
    notes
  }
}

// ---------------------------------------------------------------------------------------------
// Tables and chart

/** CPU milliseconds per operation. */
const perOperation = (seconds: number, operations: number) => round1((seconds * 1000) / operations)

/** The part's tables (markdown), `since` appended to the first heading. */
export const citusTables = (part: CitusPart, since: string): Array<string> => {
  const rows = part.configurations
  if (rows.length === 0) return []
  const first = rows[0]!
  const single = rows.find((r) => r.workers === 0)
  const ratio = (r: CitusConfiguration) =>
    single === undefined
      ? ""
      : ` (${Math.round((r.captures_per_second / single.captures_per_second) * 100) / 100}×)`
  const tables = [
    [
      `Citus by number of workers, at the storage layer (${first.memories.toLocaleString("en")} memories over ${first.accounts.toLocaleString("en")} accounts${first.preloaded ? `: ${first.preloaded.toLocaleString("en")} loaded first (\`insertMany\`, 100 of an account a call, 4 accounts at a time; ${rows.map((r) => `${r.database} ${r.preload_seconds} s`).join(", ")}), then the last ${(first.timed ?? first.memories).toLocaleString("en")} timed` : ""}: ${first.writers} concurrent writers, one \`MemoryStore.insert\` each; then ${first.search_vector.queries} SQL searches of each kind on random accounts, \`limit\` 10; PostgreSQL ${part.postgres_version}, Citus ${part.citus_version}; every server on this one machine, fsync on)${since}:`,
      "",
      `| database | captures/s (× single node) | capture p50 / p95 / p99 ms | errors | stored | vector search p50 / p95 ms (1 at a time) | vector searches/s (${first.writers} at a time) | text search p50 / p95 ms (1 at a time) | text searches/s (${first.writers} at a time) |`,
      "|---|---|---|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.database} | ${r.captures_per_second}${ratio(r)} | ${r.capture_ms.p50} / ${r.capture_ms.p95} / ${r.capture_ms.p99} | ${r.capture_errors} | ${r.stored.toLocaleString("en")} | ${r.search_vector.sequential_ms.p50} / ${r.search_vector.sequential_ms.p95} | ${r.search_vector.concurrent_per_second} | ${r.search_text.sequential_ms.p50} / ${r.search_text.sequential_ms.p95} | ${r.search_text.concurrent_per_second} |`
      )
    ].join("\n"),
    [
      `CPU during the timed captures (from /proc: every PostgreSQL process of the configuration, this Node process, the machine's busy time; ${first.cpu.load.cores} cores shared by every server):`,
      "",
      "| database | wall s | PostgreSQL CPU s (per server: coordinator first) | of it: sessions / autovacuum / WAL + checkpoints / other + unattributed | Node CPU s | other processes s | cores busy | CPU ms per capture: PostgreSQL / Node | ANALYZE rounds by UMO (one after the load: wall / PostgreSQL CPU s) |",
      "|---|---|---|---|---|---|---|---|---|",
      ...rows.map((r) => {
        const c = r.cpu.load
        const k = c.postgres_by_kind
        return `| ${r.database} | ${c.wall_seconds} | ${c.postgres_seconds} (${c.postgres_by_server.join(" + ")}) | ${k.client_backends} / ${k.autovacuum} / ${k.wal_and_checkpoints} / ${round1(k.replication + k.other + k.unattributed)} | ${c.node_seconds} | ${c.other_seconds} | ${c.cores_busy} of ${c.cores} | ${perOperation(c.postgres_seconds, r.timed ?? r.memories)} / ${perOperation(c.node_seconds, r.timed ?? r.memories)} | ${r.analyses_during_load ?? "–"}${r.one_analysis === undefined ? "" : ` (${r.one_analysis.wall_seconds} / ${r.one_analysis.postgres_seconds})`} |`
      })
    ].join("\n")
  ]
  const m = part.rebalance
  if (m !== undefined)
    tables.push(
      [
        `Rebalance under load: 2 workers with the data above, ${m.writers} writers on ${m.accounts} accounts; \`add-worker\`, then \`citus_rebalance_start(shard_transfer_mode => '${m.transfer_mode}')\`${m.logical_error === undefined ? "" : " (force_logical failed, see the JSON)"} until done; ${m.shard_groups_moved} shard groups (${m.shard_placements_moved} placements) moved in ${round1(m.rebalance_ms / 1000)} s (adding the worker: ${round1(m.add_worker_ms / 1000)} s), shard groups per worker after: ${m.shard_groups_by_worker_after.join(" / ")}:`,
        "",
        "| phase | seconds | captures | capture p50 / p95 / p99 / max ms | errors |",
        "|---|---|---|---|---|",
        ...m.phases.map(
          (p) =>
            `| ${p.phase} | ${p.seconds} | ${p.captures} | ${p.capture_ms.p50} / ${p.capture_ms.p95} / ${p.capture_ms.p99} / ${p.capture_ms.max} | ${p.errors} |`
        ),
        "",
        "| acknowledged | acknowledged but missing | stored twice | errors (stored anyway / retried) | chains audited | chains valid | chain entries / memories |",
        "|---|---|---|---|---|---|---|",
        `| ${m.captures_acknowledged} | ${m.acknowledged_missing} | ${m.stored_twice} | ${m.capture_errors} (${m.errored_but_stored} / ${m.retries}) | ${m.chains_audited} | ${m.chains_valid ? "yes" : "NO"} | ${m.chain_entries} / ${m.memories_in_touched_accounts} |`,
        ...(m.cpu_while_moving === undefined
          ? []
          : [
              "",
              `CPU while the shards moved: PostgreSQL ${m.cpu_while_moving.postgres_seconds} s (${m.cpu_while_moving.postgres_by_server.join(" + ")}; replication ${m.cpu_while_moving.postgres_by_kind.replication} s), Node ${m.cpu_while_moving.node_seconds} s, other processes ${m.cpu_while_moving.other_seconds} s, over ${m.cpu_while_moving.wall_seconds} s: ${m.cpu_while_moving.cores_busy} of ${m.cpu_while_moving.cores} cores busy.`
            ])
      ].join("\n")
    )
  if (part.notes.length > 0) tables.push(part.notes.join("\n"))
  return tables
}

/** Captures and searches per second by configuration. */
export const citusChart = (part: CitusPart) =>
  barChart({
    title: "Citus by number of workers: captures and SQL searches per second (storage layer, one machine)",
    yLabel: "per second",
    categories: part.configurations.map((r) => r.database),
    series: [
      { name: "captures/s", values: part.configurations.map((r) => r.captures_per_second) },
      {
        name: "vector searches/s",
        values: part.configurations.map((r) => r.search_vector.concurrent_per_second)
      },
      { name: "text searches/s", values: part.configurations.map((r) => r.search_text.concurrent_per_second) }
    ]
  })

/** Whether the part's checks failed: captures lost or doubled, chains broken, memories missing. */
export const citusFailed = (part: CitusPart | undefined) =>
  part !== undefined &&
  (part.configurations.some((c) => c.stored !== c.memories) ||
    (part.rebalance !== undefined &&
      (part.rebalance.acknowledged_missing > 0 ||
        part.rebalance.stored_twice > 0 ||
        !part.rebalance.chains_valid ||
        part.rebalance.chain_entries !== part.rebalance.memories_in_touched_accounts)))
