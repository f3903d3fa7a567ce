/**
 * Scale-out: one server process against two on the same PostgreSQL database, with the same
 * signing key — capture throughput (`POST /v1/batch`, 50 items a call) and search throughput,
 * and whether the result is correct: every captured memory listed, every account's chain one
 * valid line, every sampled proof valid.
 *
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:scaleout            # 800 memories a phase
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:scaleout -- --quick # 100
 *
 * Eight clients write to four accounts, two clients an account; with two processes the two
 * clients of an account talk to different processes, so every chain is appended to by both.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { Database, EmbedderChoice, SigningKey, StorageStack } from "@umo/plugins"
import { auditChains } from "../../server/test/support/Chains.js"
import { pool } from "../../server/test/support/Pool.js"
import { type LiveServer, startServer } from "../../server/test/support/ServerProcess.js"
import { dataDir, load } from "./recall/LoCoMo.js"
import { barChart } from "./support/Chart.js"
import { benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { turnTexts } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"
import { percentile, round1 } from "./support/Stats.js"

const pgUrl = process.env.UMO_BENCH_DATABASE_URL
if (!pgUrl) {
  console.log("scaleout: set UMO_BENCH_DATABASE_URL (a PostgreSQL database with pgvector) to run it")
  process.exit(0)
}

const perPhase = quick ? 100 : 800
const queries = quick ? 40 : 200
const clientCount = 8
const accountCount = 4
const texts = turnTexts(root, perPhase)
const questions = load(dataDir(root)).questions.map((q) => q.question)

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

const phase = async (processes: number, serverDir: string): Promise<Phase> => {
  const keys = Object.fromEntries(
    Array.from({ length: accountCount }, (_, i) => [
      `umo_bench-scale${processes}-${i}-${"0".repeat(20)}`,
      `scaleout-${processes}-${i}`
    ])
  )
  const keyList = Object.keys(keys)
  const env = { DATABASE_URL: pgUrl, UMO_SIGNING_KEY: benchSigningKey() }
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
        database: Database.postgres(pgUrl),
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

const serverDir = mkdtempSync(join(tmpdir(), "umo-bench-scaleout-"))
const phases: Array<Phase> = []
try {
  for (const processes of [1, 2]) phases.push(await phase(processes, serverDir))
} finally {
  rmSync(serverDir, { recursive: true, force: true })
}
process.stderr.write("\n")

const table = [
  "| processes | capture memories/s | search queries/s | search p50 / p95 ms | captured | listed | chain entries | chains valid | proofs valid |",
  "|---|---|---|---|---|---|---|---|---|",
  ...phases.map(
    (p) =>
      `| ${p.processes} | ${p.capture_per_second} | ${p.search_per_second} | ${p.search_ms.p50} / ${p.search_ms.p95} | ${p.memories_captured} | ${p.memories_listed} | ${p.chain_entries} | ${p.chains_valid ? "yes" : "NO"} | ${p.proofs_valid} / ${p.proofs_checked} |`
  )
].join("\n")
console.log(table)
const results = {
  benchmark: "scale-out on one PostgreSQL",
  machine: machine(),
  quick,
  memories_per_phase: perPhase,
  phases
}
publishResults(
  root,
  "scaleout",
  results,
  barChart({
    title: "One server process vs two on one PostgreSQL",
    yLabel: "per second",
    categories: phases.map((p) => `${p.processes} process${p.processes > 1 ? "es" : ""}`),
    series: [
      { name: "captures/s", values: phases.map((p) => p.capture_per_second) },
      { name: "searches/s", values: phases.map((p) => p.search_per_second) }
    ]
  }),
  table
)
const failed = phases.some(
  (p) =>
    !p.chains_valid ||
    p.memories_listed !== p.memories_captured ||
    p.chain_entries !== p.memories_captured ||
    p.proofs_valid !== p.proofs_checked
)
if (failed) {
  console.error("scaleout: the result is not correct (see the table)")
  process.exit(1)
}
