/**
 * Scale-out, in three parts, each checking that the result is correct as well as timing it:
 *
 * 1. One server process against two on the same PostgreSQL database, with the same signing key —
 *    capture throughput (`POST /v1/batch`, 50 items a call) and search throughput; every captured
 *    memory listed, every account's chain one valid line, every sampled proof valid. Eight clients
 *    write to four accounts, two clients an account; with two processes the two clients of an
 *    account talk to different processes, so every chain is appended to by both. Needs
 *    UMO_BENCH_DATABASE_URL.
 * 2. Reads on the primary alone against reads on the primary plus one streaming replica, on a
 *    primary and hot standby that `scripts/pg-cluster.sh` builds (asynchronous replication, fsync
 *    on): the same memories, the same questions, two server processes each time (restarted
 *    between configurations, so no query vector is cached), with the in-process search index (the
 *    default) and without it (`UMO_SEARCH_INDEX=false`: every search reads the database).
 * 3. Time to recover writes: two processes on the pair's several-host URL while four clients
 *    capture without pause; the primary is stopped (immediately, as in a crash) and the standby
 *    promoted at once; from the moment the primary is down to the first acknowledged capture sent
 *    after it, and until every process has written. With asynchronous replication and with a
 *    synchronous standby; then every acknowledged capture must be there once (with the
 *    synchronous standby: none lost) and every chain valid.
 *    With `--patroni`, only this part, on a pair that Patroni manages (`scripts/patroni-cluster.sh`:
 *    two members and an etcd of their own): the leader's node fails (its Patroni and its PostgreSQL
 *    are killed) and nobody promotes — Patroni does, once the dead leader's key expires; its runs
 *    are kept apart (`patroni_failover`), beside the manual ones.
 * 4. With `--citus`, only this: Citus by number of workers, and a rebalance under load, at the
 *    storage layer (see `scaleout-citus.ts`); kept under `citus`.
 *
 * Parts 2 and 3 need root and Debian's postgresql-common (the cluster tests' needs); a part that
 * cannot run says why, and the results it would replace are kept.
 *
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:scaleout     # all three; 800 memories, 200 searches
 *   npm run bench:scaleout -- --cluster-only                       # parts 2 and 3
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:scaleout -- --no-cluster   # part 1
 *   … -- --quick                                                   # 100 memories, 40 searches, one run each
 *   npm run bench:scaleout -- --patroni                            # part 3 under Patroni only (as root)
 *   npm run bench:scaleout -- --citus                              # Citus only (as root; --quick: 10,000 captures)
 *   npm run bench:scaleout -- --from-results                       # runs nothing: tables and chart from the saved JSON
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { UMOClient } from "@umo/client"
import { Database, EmbedderChoice, SigningKey, StorageStack } from "@umo/plugins"
import { auditChains } from "../../server/test/support/Chains.js"
import {
  clusterUnavailable,
  type PgCluster,
  patroniCluster,
  patroniUnavailable,
  pgCluster
} from "../../server/test/support/PgCluster.js"
import { pool } from "../../server/test/support/Pool.js"
import { type LiveServer, startServer } from "../../server/test/support/ServerProcess.js"
import { dataDir, load } from "./recall/LoCoMo.js"
import {
  type CitusPart,
  citusChart,
  citusFailed,
  citusTables,
  citusUnavailable,
  runCitusPart
} from "./scaleout-citus.js"
import { barChart } from "./support/Chart.js"
import { benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { seeded, turnTexts } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { publishResults, resultsFile } from "./support/Results.js"
import { p50p95, percentile, round1 } from "./support/Stats.js"

const pgUrl = process.env.UMO_BENCH_DATABASE_URL
const clusterOnly = process.argv.includes("--cluster-only")
const noCluster = process.argv.includes("--no-cluster")
/** Runs nothing: writes the tables and chart again from the saved results. */
const fromResults = process.argv.includes("--from-results")
/** Only the failover, under Patroni. */
const patroniOnly = process.argv.includes("--patroni")
/** Only Citus (`scaleout-citus.ts`). */
const citusOnly = process.argv.includes("--citus")
const oneOnly = patroniOnly || citusOnly
const runProcesses = !fromResults && !clusterOnly && !oneOnly && pgUrl !== undefined
const clusterMissing = clusterUnavailable()
const runCluster = !fromResults && !noCluster && !oneOnly && clusterMissing === undefined
const patroniMissing = patroniOnly && !fromResults ? patroniUnavailable() : undefined
const runPatroni = patroniOnly && !fromResults && patroniMissing === undefined
const citusMissing = citusOnly && !fromResults ? citusUnavailable() : undefined
const runCitus = citusOnly && !fromResults && citusMissing === undefined
if (!runProcesses && !clusterOnly && !oneOnly && !fromResults)
  console.log(
    "scaleout: one process vs two skipped: set UMO_BENCH_DATABASE_URL (a PostgreSQL database with pgvector)"
  )
if (!runCluster && !noCluster && !oneOnly && !fromResults)
  console.log(`scaleout: read replicas and failover skipped: ${clusterMissing}`)
if (patroniOnly && !runPatroni && !fromResults)
  console.log(`scaleout: failover under Patroni skipped: ${patroniMissing}`)
if (citusOnly && !runCitus && !fromResults) console.log(`scaleout: Citus skipped: ${citusMissing}`)
if (!runProcesses && !runCluster && !runPatroni && !runCitus && !fromResults) process.exit(0)

const perPhase = quick ? 100 : 800
const queries = quick ? 40 : 200
const clientCount = 8
const accountCount = 4
const texts = turnTexts(root, perPhase)
const questions = load(dataDir(root)).questions.map((q) => q.question)

/** The distinct LoCoMo questions in a seeded order: no question is asked twice of one process. */
const distinctQuestions = (() => {
  const all = [...new Set(questions)]
  const random = seeded(7)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  return all
})()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// 1. One process vs two on one PostgreSQL

interface Phase {
  readonly processes: number
  readonly capture_per_second: number
  readonly search_per_second: number
  readonly search_ms: { readonly p50: number; readonly p95: number }
  readonly memories_listed: number
  readonly memories_captured: number
  readonly chains_valid: boolean
  readonly chain_entries: number
  readonly proofs_checked: number
  readonly proofs_valid: number
}

const phase = async (databaseUrl: string, processes: number, serverDir: string): Promise<Phase> => {
  const keys = Object.fromEntries(
    Array.from({ length: accountCount }, (_, i) => [
      `umo_bench-scale${processes}-${i}-${"0".repeat(20)}`,
      `scaleout-${processes}-${i}`
    ])
  )
  const keyList = Object.keys(keys)
  const env = { DATABASE_URL: databaseUrl, UMO_SIGNING_KEY: benchSigningKey() }
  // One after the other: the first applies the migrations.
  const servers: Array<LiveServer> = []
  for (let i = 0; i < processes; i++) servers.push(await startServer(root, keys, env, { dataDir: serverDir }))
  try {
    const clients = Array.from(
      { length: clientCount },
      (_, i) =>
        new UMOClient({
          baseUrl: servers[i % processes]!.baseUrl,
          apiKey: keyList[Math.floor(i / 2) % accountCount]!,
          timeoutMs: 600_000,
          maxRetries: 0
        })
    )
    // Warm every process's model and code paths.
    for (const server of servers)
      await new UMOClient({ baseUrl: server.baseUrl, apiKey: keyList[0]! }).ask("warm up")
    const jobs = Array.from({ length: Math.ceil(texts.length / 50) }, (_, i) =>
      texts.slice(i * 50, i * 50 + 50)
    )
    const captured = new Map<string, Array<string>>(keyList.map((k) => [k, []]))
    let done = 0
    let started = performance.now()
    await pool(jobs, clientCount, async (client, job) => {
      const results = await clients[client]!.batch(job)
      for (const r of results) {
        if (!r.success || !r.umoId) throw new Error(`a batch item failed: ${JSON.stringify(r.raw)}`)
        captured.get(keyList[Math.floor(client / 2) % accountCount]!)!.push(r.umoId)
      }
      done += job.length
      progress(`scaleout: ${processes} process(es): captured ${done}/${texts.length}`)
    })
    const captureSeconds = (performance.now() - started) / 1000

    const latencies: Array<number> = []
    const asked = questions.slice(0, queries)
    started = performance.now()
    await pool(asked, clientCount, async (client, question) => {
      const t = performance.now()
      await clients[client]!.ask(question, { limit: 10 })
      latencies.push(performance.now() - t)
    })
    const searchSeconds = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)

    // Correctness through the API: counts, and a sample of proofs through alternating processes.
    let listed = 0
    let checked = 0
    let valid = 0
    for (const [k, key] of keyList.entries()) {
      const client = new UMOClient({ baseUrl: servers[k % processes]!.baseUrl, apiKey: key })
      listed += (await client.list({ limit: 1 })).totalCount
      for (const id of captured.get(key)!.filter((_, i) => i % 10 === 0)) {
        checked += 1
        const proof = await client.verify(id)
        if (proof.valid && proof.hashChainValid && !proof.chainTampered) valid += 1
      }
    }
    // Every chain, audited entry by entry with the shared key.
    const audits = await auditChains(
      Object.values(keys),
      StorageStack.layer({
        database: Database.postgres(databaseUrl),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: benchSigningKey() }),
        embedder: EmbedderChoice.layerConfig
      })
    )
    return {
      processes,
      capture_per_second: round1(texts.length / captureSeconds),
      search_per_second: round1(asked.length / searchSeconds),
      search_ms: { p50: round1(percentile(latencies, 0.5)), p95: round1(percentile(latencies, 0.95)) },
      memories_listed: listed,
      memories_captured: [...captured.values()].reduce((n, ids) => n + ids.length, 0),
      chains_valid: audits.every((a) => a.valid),
      chain_entries: audits.reduce((n, a) => n + a.entries, 0),
      proofs_checked: checked,
      proofs_valid: valid
    }
  } finally {
    for (const server of servers) await server.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Reads on the primary alone vs the primary plus one replica

interface ReadsRow {
  /** `primary` or `primary + 1 replica`. */
  readonly reads: string
  readonly search_index: boolean
  readonly processes: number
  readonly rounds: number
  readonly searches: number
  readonly search_per_second: number
  readonly search_ms: { readonly p50: number; readonly p95: number }
  /** Sequential and index scans of the tables, on each server, over the configuration's runs. */
  readonly table_scans: { readonly replica: number; readonly primary: number }
}

const readProcesses = 2
const rounds = quick ? 1 : 2

/** Table scans so far on a server (a session's counts are written when it ends, so: after the servers stop). */
const tableScans = async (cluster: PgCluster, port: number) =>
  Number(
    await cluster.query(
      port,
      "SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables"
    )
  )

/** Until the standby has replayed everything the primary has written so far. */
const caughtUp = async (cluster: PgCluster) => {
  const lsn = await cluster.query(cluster.primaryPort, "SELECT pg_current_wal_lsn()")
  for (let i = 0; i < 600; i++) {
    if (
      (await cluster.query(cluster.standbyPort, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`)) ===
      "t"
    )
      return
    await sleep(50)
  }
  throw new Error("the standby did not catch up in 30 s")
}

const readKeys = Object.fromEntries(
  Array.from({ length: accountCount }, (_, i) => [`umo_bench-reads-${i}-${"0".repeat(24)}`, `reads-${i}`])
)
const readKeyList = Object.keys(readKeys)

/** Starts the processes of one configuration, runs every client's share of `asked`, stops them. */
const readsRun = async (
  cluster: PgCluster,
  replica: boolean,
  index: boolean,
  asked: ReadonlyArray<string>
) => {
  const env = {
    DATABASE_URL: cluster.bothUrl,
    UMO_SIGNING_KEY: benchSigningKey(),
    ...(replica ? { UMO_DATABASE_READ_URLS: cluster.standbyUrl } : {}),
    ...(index ? {} : { UMO_SEARCH_INDEX: "false" })
  }
  const before = [
    await tableScans(cluster, cluster.standbyPort),
    await tableScans(cluster, cluster.primaryPort)
  ]
  const servers = await Promise.all(
    Array.from({ length: readProcesses }, () => startServer(root, readKeys, env))
  )
  try {
    const clients = Array.from(
      { length: clientCount },
      (_, i) =>
        new UMOClient({
          baseUrl: servers[i % readProcesses]!.baseUrl,
          apiKey: readKeyList[Math.floor(i / 2) % accountCount]!,
          timeoutMs: 600_000,
          maxRetries: 0
        })
    )
    // Every process loads every account's index (or warms its SQL path) on questions not measured.
    for (const server of servers)
      for (const key of readKeyList)
        for (const question of distinctQuestions.slice(-3))
          await new UMOClient({ baseUrl: server.baseUrl, apiKey: key }).ask(question, { limit: 10 })
    await caughtUp(cluster)
    const latencies: Array<number> = []
    const started = performance.now()
    await pool(asked, clientCount, async (client, question) => {
      const t = performance.now()
      await clients[client]!.ask(question, { limit: 10 })
      latencies.push(performance.now() - t)
    })
    return { latencies, seconds: (performance.now() - started) / 1000, before }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

const replicaReads = async (): Promise<Array<ReadsRow>> => {
  const cluster = await pgCluster("s")
  try {
    // The memories, captured once through two processes on the primary.
    const env = { DATABASE_URL: cluster.bothUrl, UMO_SIGNING_KEY: benchSigningKey() }
    const loaders = await Promise.all([0, 1].map(() => startServer(root, readKeys, env)))
    try {
      const jobs = Array.from({ length: Math.ceil(texts.length / 50) }, (_, i) =>
        texts.slice(i * 50, i * 50 + 50)
      )
      let done = 0
      await pool(jobs, clientCount, async (client, job) => {
        const results = await new UMOClient({
          baseUrl: loaders[client % 2]!.baseUrl,
          apiKey: readKeyList[Math.floor(client / 2) % accountCount]!,
          timeoutMs: 600_000,
          maxRetries: 0
        }).batch(job)
        if (!results.every((r) => r.success)) throw new Error("a batch item failed")
        done += job.length
        progress(`scaleout: reads: captured ${done}/${texts.length}`)
      })
    } finally {
      await Promise.all(loaders.map((server) => server.stop()))
    }
    const asked = distinctQuestions.slice(0, queries)
    const rows: Array<ReadsRow> = []
    for (const index of [true, false]) {
      const samples = new Map<
        boolean,
        { latencies: Array<number>; seconds: number; replica: number; primary: number }
      >([false, true].map((replica) => [replica, { latencies: [], seconds: 0, replica: 0, primary: 0 }]))
      // Alternating, so neither configuration always runs on the warmer machine.
      for (let round = 0; round < rounds; round++)
        for (const replica of round % 2 === 0 ? [false, true] : [true, false]) {
          progress(
            `scaleout: reads: index ${index ? "on" : "off"}, ${replica ? "with a replica" : "primary only"}, round ${round + 1}/${rounds}`
          )
          const run = await readsRun(cluster, replica, index, asked)
          // The servers' sessions have ended, and with them written their statistics.
          await sleep(1000)
          const sample = samples.get(replica)!
          sample.latencies.push(...run.latencies)
          sample.seconds += run.seconds
          sample.replica += (await tableScans(cluster, cluster.standbyPort)) - run.before[0]!
          sample.primary += (await tableScans(cluster, cluster.primaryPort)) - run.before[1]!
        }
      for (const replica of [false, true]) {
        const sample = samples.get(replica)!
        rows.push({
          reads: replica ? "primary + 1 replica" : "primary",
          search_index: index,
          processes: readProcesses,
          rounds,
          searches: sample.latencies.length,
          search_per_second: round1(sample.latencies.length / sample.seconds),
          search_ms: p50p95(sample.latencies),
          table_scans: { replica: sample.replica, primary: sample.primary }
        })
      }
    }
    return rows
  } finally {
    await cluster.down()
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Time to recover writes after the primary stops

interface FailoverRun {
  readonly replication: "asynchronous" | "synchronous"
  /**
   * `pg-cluster.sh stop-primary` (an immediate stop), then `promote` (returns once it accepts writes).
   * Under Patroni: `patroni-cluster.sh stop-primary` (the leader's Patroni and PostgreSQL killed),
   * then until Patroni has promoted the standby (it says it is out of recovery; polled every 100 ms).
   */
  readonly stop_ms: number
  readonly promote_ms: number
  /** From the primary being down (stop-primary returned) to the first acknowledged capture sent after it. */
  readonly first_write_ms: number
  /** … and until each process had acknowledged one. */
  readonly every_process_ms: number
  readonly answered_503: number
  readonly connection_errors: number
  readonly other_statuses: number
  readonly captures_acknowledged: number
  readonly captures_stored: number
  readonly acknowledged_missing: number
  readonly stored_twice: number
  readonly chains_valid: boolean
}

/** Patroni's timing settings (seconds): patroni-cluster.sh's, which the same variables override. */
interface PatroniSettings {
  readonly ttl: number
  readonly loop_wait: number
  readonly retry_timeout: number
}
const currentPatroniSettings = (): PatroniSettings => ({
  ttl: Number(process.env["UMO_PATRONI_TTL"] ?? 10),
  loop_wait: Number(process.env["UMO_PATRONI_LOOP_WAIT"] ?? 1),
  retry_timeout: Number(process.env["UMO_PATRONI_RETRY_TIMEOUT"] ?? 4)
})

const failoverKeys = Object.fromEntries(
  [0, 1].map((i) => [`umo_bench-failover-${i}-${"0".repeat(22)}`, `failover-${i}`])
)
const failoverKeyList = Object.keys(failoverKeys)

const failoverRun = async (synchronous: boolean, run: number, patroni = false): Promise<FailoverRun> => {
  const cluster = await (patroni ? patroniCluster : pgCluster)(
    patroni ? "p" : "f",
    synchronous ? ["--sync"] : []
  )
  const servers: Array<LiveServer> = []
  try {
    const env = {
      DATABASE_URL: cluster.bothUrl,
      UMO_DATABASE_READ_URLS: cluster.standbyUrl,
      UMO_SIGNING_KEY: benchSigningKey()
    }
    servers.push(...(await Promise.all([0, 1].map(() => startServer(root, failoverKeys, env)))))
    // Warm each process's model and code paths (a search: nothing stored besides the clients' captures).
    for (const server of servers)
      await new UMOClient({ baseUrl: server.baseUrl, apiKey: failoverKeyList[0]! }).ask("warm up")

    interface Attempted {
      readonly server: number
      readonly account: number
      readonly content: string
      readonly started: number
      id?: string | undefined
      ended?: number
    }
    const captures: Array<Attempted> = []
    const statuses = { refused: 0, lost: 0, other: 0 }
    let stopAt = Number.POSITIVE_INFINITY
    let stop = false
    // Four clients, two a process, each account written through both; a capture is retried with
    // its Idempotency-Key 50 ms after a 503 or a lost connection (sooner than the Retry-After of
    // 2 s, to see the first moment writes work again).
    const client = async (c: number) => {
      const server = c % 2
      const account = Math.floor(c / 2)
      for (let n = 0; !stop; n++) {
        const record: Attempted = {
          server,
          account,
          content: `[${patroni ? "p" : ""}${synchronous ? "s" : "a"}${run}.${c}.${n}] ${texts[(c * 997 + n) % texts.length]}`,
          started: performance.now()
        }
        captures.push(record)
        for (let attempt = 0; ; attempt++) {
          const status = await fetch(`${servers[server]!.baseUrl}/v1/process`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${failoverKeyList[account]}`,
              "content-type": "application/json",
              "idempotency-key": `failover-${process.pid}-${synchronous}-${run}-${c}-${n}`
            },
            body: JSON.stringify({ content: record.content }),
            signal: AbortSignal.timeout(60_000)
          }).then(
            async (response) => {
              const body = (await response.json().catch(() => ({}))) as { data?: { umo_id?: string } }
              if (response.status === 200) record.id = body.data?.umo_id
              return response.status
            },
            () => "lost" as const
          )
          if (status === 200) break
          if (status === 503) statuses.refused += 1
          else if (status === "lost") statuses.lost += 1
          else statuses.other += 1
          if (attempt > 1200) throw new Error(`a capture was refused for a minute (last: ${status})`)
          await sleep(50)
        }
        record.ended = performance.now()
        // Enough after the failover: every process has written five times since.
        if (
          [0, 1].every(
            (s) =>
              captures.filter((x) => x.server === s && x.started >= stopAt && x.ended !== undefined).length >=
              5
          )
        )
          stop = true
      }
    }
    const load = Promise.all([0, 1, 2, 3].map(client))
    const acknowledged = () => captures.filter((c) => c.ended !== undefined).length
    for (let i = 0; acknowledged() < 20; i++) {
      if (i > 1200) throw new Error("fewer than 20 captures in a minute before the failover")
      await sleep(50)
    }
    const stopping = performance.now()
    await cluster.script("stop-primary")
    stopAt = performance.now()
    // `promote`, or under Patroni: until it has promoted the standby by itself.
    await cluster.failover()
    const promoted = performance.now()
    await load

    const after = (server?: number) =>
      Math.min(
        ...captures
          .filter(
            (c) =>
              c.started >= stopAt && c.ended !== undefined && (server === undefined || c.server === server)
          )
          .map((c) => c.ended! - stopAt)
      )

    // Every acknowledged capture is there, once.
    let stored = 0
    let missing = 0
    let twice = 0
    for (const [a, key] of failoverKeyList.entries()) {
      const reader = new UMOClient({ baseUrl: servers[a % 2]!.baseUrl, apiKey: key })
      const ids = new Set<string>()
      for await (const item of reader.iterate({ limit: 100 })) ids.add(item.umoId)
      stored += ids.size
      const mine = new Set(captures.filter((c) => c.account === a && c.id !== undefined).map((c) => c.id!))
      missing += [...mine].filter((id) => !ids.has(id)).length
      // A memory no acknowledged capture named: a retry stored again (every capture was retried until acknowledged).
      twice += [...ids].filter((id) => !mine.has(id)).length
    }
    const audits = await auditChains(
      Object.values(failoverKeys),
      StorageStack.layer({
        database: Database.postgres(cluster.bothUrl),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: benchSigningKey() }),
        embedder: EmbedderChoice.layerConfig
      })
    )
    return {
      replication: synchronous ? "synchronous" : "asynchronous",
      stop_ms: Math.round(stopAt - stopping),
      promote_ms: Math.round(promoted - stopAt),
      first_write_ms: Math.round(after()),
      every_process_ms: Math.round(Math.max(after(0), after(1))),
      answered_503: statuses.refused,
      connection_errors: statuses.lost,
      other_statuses: statuses.other,
      captures_acknowledged: acknowledged(),
      captures_stored: stored,
      acknowledged_missing: missing,
      stored_twice: twice,
      chains_valid: audits.every((a) => a.valid)
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
    await cluster.down()
  }
}

// ---------------------------------------------------------------------------------------------

interface Results {
  readonly benchmark: string
  readonly machine: ReturnType<typeof machine>
  readonly quick: boolean
  readonly memories_per_phase: number
  readonly phases: ReadonlyArray<Phase>
  /** When the rows of each part were measured (a run may measure some parts and keep the others). */
  readonly measured?: {
    readonly phases?: string | undefined
    readonly reads?: string | undefined
    readonly failover?: string | undefined
    readonly patroni_failover?: string | undefined
    readonly citus?: string | undefined
  }
  readonly reads?: ReadonlyArray<ReadsRow>
  readonly failover?: ReadonlyArray<FailoverRun>
  /** Part 3 under Patroni (`--patroni`), and Patroni's timing settings in those runs. */
  readonly patroni_failover?: ReadonlyArray<FailoverRun>
  readonly patroni_settings?: PatroniSettings
  /** Citus by number of workers and a rebalance under load (`--citus`). */
  readonly citus?: CitusPart
}

const previousFile = resultsFile(root, "scaleout", quick, "json")
const previous: Partial<Results> = existsSync(previousFile)
  ? JSON.parse(readFileSync(previousFile, "utf8"))
  : {}
/** When and on what a part was measured: its rows may come from an earlier run than the others. */
const measuredOn = (m: ReturnType<typeof machine>) => `${m.date} on ${m.cores} cores (${m.cpu})`
const today = measuredOn(machine())
// Results from before parts were dated on their own carry the date alone, of the run's machine.
const dated = (value: string | undefined) =>
  value !== undefined && previous.machine !== undefined && value === previous.machine.date
    ? measuredOn(previous.machine)
    : value

let phases: ReadonlyArray<Phase> = previous.phases ?? []
let reads: ReadonlyArray<ReadsRow> = previous.reads ?? []
let failover: ReadonlyArray<FailoverRun> = previous.failover ?? []
let patroniFailover: ReadonlyArray<FailoverRun> = previous.patroni_failover ?? []
let patroniSettings: PatroniSettings | undefined = previous.patroni_settings
let citus: CitusPart | undefined = previous.citus
const measured = {
  phases: dated(previous.measured?.phases ?? previous.machine?.date),
  reads: dated(previous.measured?.reads),
  failover: dated(previous.measured?.failover),
  patroni_failover: dated(previous.measured?.patroni_failover),
  citus: dated(previous.measured?.citus)
}

if (runProcesses) {
  const serverDir = mkdtempSync(join(tmpdir(), "umo-bench-scaleout-"))
  const fresh: Array<Phase> = []
  try {
    for (const processes of [1, 2]) fresh.push(await phase(pgUrl!, processes, serverDir))
  } finally {
    rmSync(serverDir, { recursive: true, force: true })
  }
  phases = fresh
  measured.phases = today
}
if (runCluster) {
  reads = await replicaReads()
  measured.reads = today
  const runs: Array<FailoverRun> = []
  for (const synchronous of [false, true])
    for (let run = 0; run < (quick ? 1 : 3); run++) {
      progress(`scaleout: failover, ${synchronous ? "synchronous" : "asynchronous"} standby, run ${run + 1}`)
      runs.push(await failoverRun(synchronous, run))
    }
  failover = runs
  measured.failover = today
}
if (runPatroni) {
  const runs: Array<FailoverRun> = []
  for (const synchronous of [false, true])
    for (let run = 0; run < (quick ? 1 : 3); run++) {
      progress(
        `scaleout: failover under Patroni, ${synchronous ? "synchronous" : "asynchronous"} standby, run ${run + 1}`
      )
      runs.push(await failoverRun(synchronous, run, true))
    }
  patroniFailover = runs
  patroniSettings = currentPatroniSettings()
  measured.patroni_failover = today
}
if (runCitus) {
  citus = await runCitusPart(root, quick, machine().cores)
  measured.citus = today
}
process.stderr.write("\n")

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!
}
const span = (xs: ReadonlyArray<number>) => `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`
// The heading's machine line is the latest run's; rows measured elsewhere or before say so.
const latest = fromResults && previous.machine !== undefined ? measuredOn(previous.machine) : today
const since = (when: string | undefined) =>
  when === undefined || when === latest ? "" : ` (measured ${when})`

const tables: Array<string> = []
if (phases.length > 0)
  tables.push(
    [
      `One process vs two on one PostgreSQL${since(measured.phases)}:`,
      "",
      "| processes | capture memories/s | search queries/s | search p50 / p95 ms | captured | listed | chain entries | chains valid | proofs valid |",
      "|---|---|---|---|---|---|---|---|---|",
      ...phases.map(
        (p) =>
          `| ${p.processes} | ${p.capture_per_second} | ${p.search_per_second} | ${p.search_ms.p50} / ${p.search_ms.p95} | ${p.memories_captured} | ${p.memories_listed} | ${p.chain_entries} | ${p.chains_valid ? "yes" : "NO"} | ${p.proofs_valid} / ${p.proofs_checked} |`
      )
    ].join("\n")
  )
if (reads.length > 0)
  tables.push(
    [
      `Reads on the primary alone vs with one streaming replica (pg-cluster.sh, asynchronous, fsync on; ${reads[0]!.processes} processes, ${reads[0]!.searches} searches a row over ${reads[0]!.rounds} round(s))${since(measured.reads)}:`,
      "",
      "| search index | reads on | searches/s | search p50 / p95 ms | table scans on the replica / the primary |",
      "|---|---|---|---|---|",
      ...reads.map(
        (r) =>
          `| ${r.search_index ? "in-process (default)" : "off (SQL)"} | ${r.reads} | ${r.search_per_second} | ${r.search_ms.p50} / ${r.search_ms.p95} | ${r.table_scans.replica} / ${r.table_scans.primary} |`
      )
    ].join("\n")
  )
/** Part 3's table, manual or under Patroni: medians (min–max) per replication mode, sums of counts. */
const failoverTable = (runs: ReadonlyArray<FailoverRun>, heading: string, synchronousLabel: string) =>
  [
    heading,
    "",
    "| standby | stop-primary ms | promote ms | stop issued → first acknowledged capture, ms | primary down → first acknowledged capture, ms | primary down → every process wrote, ms | 503s | connection errors | acknowledged | stored | acknowledged but missing | stored twice | chains valid |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...(["asynchronous", "synchronous"] as const).flatMap((mode) => {
      const mine = runs.filter((f) => f.replication === mode)
      if (mine.length === 0) return []
      const sum = (k: keyof FailoverRun) => mine.reduce((n, r) => n + Number(r[k]), 0)
      return [
        `| ${mode === "synchronous" ? synchronousLabel : "asynchronous"} | ${span(mine.map((r) => r.stop_ms))} | ${span(mine.map((r) => r.promote_ms))} | ${span(mine.map((r) => r.stop_ms + r.first_write_ms))} | ${span(mine.map((r) => r.first_write_ms))} | ${span(mine.map((r) => r.every_process_ms))} | ${sum("answered_503")} | ${sum("connection_errors")} | ${sum("captures_acknowledged")} | ${sum("captures_stored")} | ${sum("acknowledged_missing")} | ${sum("stored_twice")} | ${mine.every((r) => r.chains_valid) ? "yes" : "NO"} |`
      ]
    })
  ].join("\n")
if (failover.length > 0)
  tables.push(
    failoverTable(
      failover,
      `Recovering writes after the primary stops (immediate stop, then promote at once; 2 processes, 4 clients capturing; medians (min–max) of ${failover.filter((f) => f.replication === "asynchronous").length} runs)${since(measured.failover)}:`,
      "synchronous (`synchronous_commit = on`)"
    )
  )
if (patroniFailover.length > 0) {
  const settings = patroniSettings ?? currentPatroniSettings()
  tables.push(
    failoverTable(
      patroniFailover,
      `Recovering writes when Patroni fails over by itself (patroni-cluster.sh: the leader's Patroni and PostgreSQL killed, nobody promotes; ttl ${settings.ttl} s, loop_wait ${settings.loop_wait} s, retry_timeout ${settings.retry_timeout} s; "promote ms": until Patroni had promoted the standby; 2 processes, 4 clients capturing; medians (min–max) of ${patroniFailover.filter((f) => f.replication === "asynchronous").length} runs)${since(measured.patroni_failover)}:`,
      "synchronous (Patroni's `synchronous_mode`)"
    )
  )
}
if (citus !== undefined) tables.push(...citusTables(citus, since(measured.citus)))
const table = tables.join("\n\n")
console.log(table)

const results: Results = {
  benchmark: "scale-out: processes on one PostgreSQL, read replicas, failover, Citus",
  machine: fromResults && previous.machine !== undefined ? previous.machine : machine(),
  quick,
  memories_per_phase: perPhase,
  measured,
  phases,
  reads,
  failover,
  patroni_failover: patroniFailover,
  ...(patroniSettings === undefined ? {} : { patroni_settings: patroniSettings }),
  ...(citus === undefined ? {} : { citus })
}
const categories = [
  ...phases.map((p) => `${p.processes} process${p.processes > 1 ? "es" : ""}`),
  ...reads.map(
    (r) => `${r.search_index ? "index" : "SQL"}: ${r.reads === "primary" ? "primary" : "+ replica"}`
  )
]
publishResults(
  root,
  "scaleout",
  results,
  barChart({
    title: "Searches per second: one process vs two; reads on the primary vs with a replica",
    yLabel: "searches per second",
    categories,
    series: [
      {
        name: "searches/s (10 results, 8 clients)",
        values: [...phases.map((p) => p.search_per_second), ...reads.map((r) => r.search_per_second)]
      }
    ]
  }),
  table
)
// Part 3 in a chart of its own (other units): how long writes were away, promote at once vs Patroni.
const failoverBars = (["asynchronous", "synchronous"] as const)
  .flatMap((mode) => [
    { name: `promote: ${mode.slice(0, 5)}`, runs: failover.filter((f) => f.replication === mode) },
    { name: `Patroni: ${mode.slice(0, 5)}`, runs: patroniFailover.filter((f) => f.replication === mode) }
  ])
  .filter((bar) => bar.runs.length > 0)
if (failoverBars.length > 0) {
  const seconds = (pick: (run: FailoverRun) => number) =>
    failoverBars.map((bar) => median(bar.runs.map(pick)) / 1000)
  const chart = resultsFile(root, "scaleout-failover", quick, "svg")
  writeFileSync(
    chart,
    barChart({
      title: "Writes after the primary fails: standby promoted at once vs by Patroni (medians)",
      yLabel: "seconds after the primary was down",
      categories: failoverBars.map((bar) => bar.name),
      series: [
        { name: "first acknowledged capture", values: seconds((r) => r.first_write_ms) },
        { name: "every process wrote", values: seconds((r) => r.every_process_ms) }
      ],
      reference: { value: 30, label: "target: 30 s" }
    })
  )
  console.log(`wrote ${relative(root, chart)}`)
}
// Citus in a chart of its own: captures and searches per second by number of workers.
if (citus !== undefined && citus.configurations.length > 0) {
  const chart = resultsFile(root, "scaleout-citus", quick, "svg")
  writeFileSync(chart, citusChart(citus))
  console.log(`wrote ${relative(root, chart)}`)
}
const failed =
  citusFailed(citus) ||
  phases.some(
    (p) =>
      !p.chains_valid ||
      p.memories_listed !== p.memories_captured ||
      p.chain_entries !== p.memories_captured ||
      p.proofs_valid !== p.proofs_checked
  ) ||
  [...failover, ...patroniFailover].some(
    (f) =>
      !f.chains_valid ||
      f.stored_twice > 0 ||
      f.other_statuses > 0 ||
      (f.replication === "synchronous" && f.acknowledged_missing > 0)
  )
if (failed) {
  console.error("scaleout: the result is not correct (see the tables)")
  process.exit(1)
}
