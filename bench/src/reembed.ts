/**
 * Changing the embedder of a deployment that has data (`UMO_REEMBED=on`, docs/pipeline.md): a
 * PostgreSQL store filled by one embedder (the scale corpus, `ScaleCorpus.bulkLoad`), then the
 * server as a user starts it (`npm start`) configured with another and asked to re-embed. Searches
 * run one after another the whole time; once a share of the memories is staged the server's
 * process is killed (SIGKILL: a crash, not a shutdown) and started again, and it goes on from what
 * was staged until the switch; searches go on for a while after it. Reported: staging rate, what
 * was staged at the kill and at the restart, how long the switch held captures, searches answered
 * and failed before, during and after (a search is attempted only while the server is up: the
 * restart's gap is reported on its own), proofs of sampled memories after the switch.
 *
 *   npm run bench:reembed                                  # 10,000 memories, use-lite -> mpnet int8
 *   npm run bench:reembed -- --memories 100000 --from mpnet-int8 --to minilm-int8
 *   npm run bench:reembed -- --quick                       # 1,000 memories
 *
 * Results: bench/results/reembed.{json,svg} and the `reembed` section of bench/README.md for 10,000
 * memories; `reembed-N` for another size.
 */
import { execFileSync } from "node:child_process"
import { UMOClient } from "@umo/client"
import { Database } from "@umo/plugins"
import { Effect } from "effect"
import { buildPackages, type NpmServer, startNpmServer } from "./memory/NpmServer.js"
import { dropDatabase, provisionDatabase, umoEmbedderEnv } from "./peers/Systems.js"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, modelsDir, progress, quick, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"
import * as ScaleCorpus from "./support/ScaleCorpus.js"
import { percentile, round1 } from "./support/Stats.js"
import { timedSearch } from "./support/TimedSearch.js"

const embedders: Record<string, Record<string, string>> = {
  "use-lite": { UMO_EMBEDDER: "use-lite" },
  "mpnet-int8": umoEmbedderEnv(modelsDir, "sentence-transformers/all-mpnet-base-v2", "int8"),
  "mpnet-fp32": umoEmbedderEnv(modelsDir, "sentence-transformers/all-mpnet-base-v2", "fp32"),
  "minilm-int8": umoEmbedderEnv(modelsDir, "sentence-transformers/all-MiniLM-L6-v2", "int8")
}
const size = Number(argument("memories") ?? (quick ? 1_000 : 10_000))
const from = argument("from") ?? "use-lite"
const to = argument("to") ?? "mpnet-int8"
if (!embedders[from] || !embedders[to])
  throw new Error(`--from and --to: one of ${Object.keys(embedders).join(", ")}`)
/** The share of memories staged when the server is killed. */
const killAt = 0.4
const afterSwitchMs = 20_000
const account = "reembed-bench"
const apiKey = `umo_bench-reembed-${"0".repeat(22)}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Health {
  readonly reembedding: { state: string; staged: number; total: number; detail: string | null } | null
}

const url = (() => {
  const name = "umo_bench_reembed"
  dropDatabase(provisionDatabase(root, name))
  return provisionDatabase(root, name)
})()

// The store, filled by the first embedder (its vectors precomputed per LoCoMo turn).
Object.assign(process.env, { UMO_MODELS_DIR: modelsDir, ...embedders[from] })
const corpus = await ScaleCorpus.make({ root, quick })
const loadStarted = performance.now()
await Effect.runPromise(
  corpus
    .bulkLoad(account, size, () => ({}), { rebuildVectorIndex: true })
    .pipe(Effect.provide(corpus.storage(Database.postgres(url))))
)
const loadSeconds = round1((performance.now() - loadStarted) / 1000)
progress(`loaded ${size} memories with ${from} in ${loadSeconds} s`)

buildPackages(root)
const start = () =>
  startNpmServer(root, {
    ...embedders[to]!,
    UMO_MODELS_DIR: modelsDir,
    UMO_REEMBED: "on",
    HOST: "127.0.0.1",
    DATABASE_URL: url,
    UMO_SIGNING_KEY: benchSigningKey(),
    UMO_API_KEYS: `${apiKey}=${account}`,
    UMO_RATE_LIMIT_PER_MINUTE: "100000000"
  })
const staged = () =>
  Number(
    execFileSync("psql", [url, "-tAc", "SELECT count(*) FROM memory_chunks_next WHERE chunk_index = 0"], {
      encoding: "utf8"
    }).trim()
  )

let server: NpmServer = await start()
const began = performance.now()
const at = () => round1((performance.now() - began) / 1000)
let up = true
let state = "starting"
let done = false
const searches: Array<{ at: number; state: string; ms: number; app: number; servedBy: string }> = []
const failures: Array<{ at: number; state: string; error: string }> = []
const timeline: Array<{ at: number; state: string; staged: number }> = []

const questions = corpus.questions.map((q) => q.question)
const searching = (async () => {
  for (let i = 0; !done; i++) {
    if (!up) {
      await sleep(50)
      continue
    }
    // A question asked once per model: the server keeps query vectors by model and text.
    const query = `${questions[i % questions.length]}${i >= questions.length ? ` (${Math.floor(i / questions.length)})` : ""}`
    const phase = state
    try {
      const r = await timedSearch(server.baseUrl, apiKey, query)
      searches.push({
        at: at(),
        state: phase,
        ms: round1(r.ms),
        app: r.timing.find((t) => t.name === "app")?.ms ?? r.ms,
        servedBy: r.servedBy
      })
    } catch (error) {
      if (up) failures.push({ at: at(), state: phase, error: String(error) })
    }
    await sleep(100)
  }
})()

let killed: { at: number; staged: number } | undefined
let restarted: { at: number; gap_seconds: number; staged: number } | undefined
let switched: number | undefined
for (;;) {
  await sleep(500)
  const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as Health
  const r = health.reembedding
  if (r === null) throw new Error(`the server is not re-embedding:\n${server.output()}`)
  if (r.state !== state) timeline.push({ at: at(), state: r.state, staged: r.staged })
  state = r.state
  progress(
    `re-embedding: ${r.state}, ${r.staged} of ${r.total} staged, ${searches.length} searches, ${failures.length} failed`
  )
  if (killed === undefined && r.staged >= killAt * size) {
    up = false
    process.kill(server.serverNode()!.pid, "SIGKILL")
    await server.stop()
    killed = { at: at(), staged: staged() }
    server = await start()
    restarted = { at: at(), gap_seconds: round1(at() - killed.at), staged: staged() }
    up = true
    continue
  }
  if (r.state === "switched" && switched === undefined) switched = at()
  if (switched !== undefined && at() - switched > afterSwitchMs / 1000) break
}
done = true
await searching

// Proofs of sampled memories, through the API, after the switch.
const client = new UMOClient({ baseUrl: server.baseUrl, apiKey })
const sample = (await client.list({ limit: 50 })).items
const proofs = await Promise.all(sample.map((m) => client.verify(m.umoId)))
const rssMb = Math.round((server.serverNode()?.rss_kb ?? 0) / 1024)
await server.stop()
dropDatabase(url)

const switching = timeline.find((t) => t.state === "switching")
const phase = (name: string, keep: (s: (typeof searches)[number]) => boolean) => {
  const chosen = searches.filter(keep)
  const app = chosen.map((s) => s.app).sort((a, b) => a - b)
  return {
    phase: name,
    searches: chosen.length,
    failed: failures.filter((f) => keep({ ...f, ms: 0, app: 0, servedBy: "" })).length,
    p50_ms: round1(percentile(app, 0.5)),
    p95_ms: round1(percentile(app, 0.95)),
    by_database: chosen.filter((s) => s.servedBy === "database").length
  }
}
const phases = [
  phase("staging", (s) => switching === undefined || s.at < switching.at),
  phase("after the switch", (s) => switched !== undefined && s.at >= switched)
]
const stagingSeconds = (switching?.at ?? 0) - (restarted?.gap_seconds ?? 0)
const results = {
  quick,
  machine: machine(),
  memories: size,
  from: embedders[from],
  to: embedders[to],
  load_seconds: loadSeconds,
  staged_per_second: round1(size / Math.max(1, stagingSeconds)),
  killed,
  restarted,
  switch_seconds: switching === undefined || switched === undefined ? null : round1(switched - switching.at),
  total_seconds: switched,
  searches: searches.length,
  failed: failures.length,
  failures: failures.slice(0, 10),
  phases,
  proofs: { checked: proofs.length, valid: proofs.filter((p) => p.valid).length },
  rss_mb_after: rssMb,
  timeline
}
const table = [
  `${size.toLocaleString("en")} memories on PostgreSQL, ${from} → ${to}; killed (SIGKILL) at ${killed?.staged} staged, up again after ${restarted?.gap_seconds} s with ${restarted?.staged} staged.`,
  "",
  "| | figure |",
  "|---|---|",
  `| staged per second (both runs, the restart's gap left out) | ${results.staged_per_second} |`,
  `| switch (captures wait; searches read the old vectors) | ${results.switch_seconds} s |`,
  `| from the first start to switched | ${results.total_seconds} s |`,
  `| searches / failed | ${results.searches} / ${results.failed} |`,
  ...phases.map(
    (p) =>
      `| search p50 / p95 ms, ${p.phase} (${p.searches}; database-served ${p.by_database}) | ${p.p50_ms} / ${p.p95_ms} |`
  ),
  `| proofs valid after the switch | ${results.proofs.valid} of ${results.proofs.checked} |`,
  `| server RSS after | ${rssMb} MB |`
].join("\n")
const svg = barChart({
  title: `Search during a re-embedding (${size.toLocaleString("en")} memories, ${from} → ${to})`,
  yLabel: "server ms",
  categories: phases.map((p) => p.phase),
  series: [
    { name: "p50", values: phases.map((p) => p.p50_ms) },
    { name: "p95", values: phases.map((p) => p.p95_ms) }
  ]
})
console.log(`\n${table}`)
// The default size's results are `reembed.*`; another size's sit beside them (`reembed-100000.*`).
publishResults(root, size === 10_000 ? "reembed" : `reembed-${size}`, results, svg, table)
process.exit(0)
