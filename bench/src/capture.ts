/**
 * Capture throughput: memories per second through the public API (`POST /v1/batch` with 100 items
 * a call, and `POST /v1/process` one at a time), with 1, 4 and 16 concurrent clients (each its own
 * account), next to the raw embedder's throughput on the same texts in the same run — the limit of
 * the pipeline on this machine, since every memory must be embedded.
 *
 *   npm run bench:capture                 # 800 texts a mode, PGlite
 *   npm run bench:capture -- --quick      # 32 texts a mode
 *   UMO_BENCH_DATABASE_URL=postgres://… npm run bench:capture   # PostgreSQL too (a fresh database)
 *
 * The embedder is the server's default unless UMO_EMBEDDER / UMO_EMBEDDER_MODEL say otherwise.
 */
import { UMOClient } from "@umo/client"
import { pool } from "../../server/test/support/Pool.js"
import { startServer } from "../../server/test/support/ServerProcess.js"
import { barChart } from "./support/Chart.js"
import { benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { turnTexts } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { rawEmbedder } from "./support/RawEmbedder.js"
import { publishResults } from "./support/Results.js"
import { round1 } from "./support/Stats.js"

const perMode = quick ? 32 : 800
const concurrency = [1, 4, 16] as const

interface Row {
  readonly database: string
  readonly mode: "batch" | "single"
  readonly clients: number
  readonly memories: number
  readonly seconds: number
  readonly per_second: number
}

const throughput = async (database: string, env: Record<string, string>, texts: ReadonlyArray<string>) => {
  const accounts = 2 * concurrency.reduce((a, b) => a + b, 0)
  const keys = Object.fromEntries(
    Array.from({ length: accounts }, (_, i) => [
      `umo_bench-capture-${String(i).padStart(3, "0")}-${"0".repeat(20)}`,
      `capture-${i}`
    ])
  )
  const server = await startServer(root, keys, env)
  const keyList = Object.keys(keys)
  let nextKey = 0
  const rows: Array<Row> = []
  try {
    // Warm up the server's embedder and code paths on an account of its own.
    await new UMOClient({ baseUrl: server.baseUrl, apiKey: keyList[accounts - 1]! }).batch(texts.slice(0, 4))
    for (const mode of ["batch", "single"] as const) {
      for (const c of concurrency) {
        const clients = Array.from(
          { length: c },
          () =>
            new UMOClient({
              baseUrl: server.baseUrl,
              apiKey: keyList[nextKey++]!,
              timeoutMs: 600_000,
              maxRetries: 0
            })
        )
        const jobs =
          mode === "batch"
            ? Array.from({ length: Math.ceil(texts.length / 100) }, (_, i) =>
                texts.slice(i * 100, i * 100 + 100)
              )
            : texts.map((t) => [t])
        let done = 0
        const started = performance.now()
        await pool(jobs, c, async (client, job) => {
          if (mode === "batch") {
            const results = await clients[client]!.batch(job)
            if (results.some((r) => !r.success))
              throw new Error(`a batch item failed: ${JSON.stringify(results.find((r) => !r.success)?.raw)}`)
          } else await clients[client]!.capture(job[0]!)
          done += job.length
          if (done % 20 === 0 || done === texts.length)
            progress(`capture: ${database}, ${mode}, ${c} client(s): ${done}/${texts.length}`)
        })
        const seconds = (performance.now() - started) / 1000
        rows.push({
          database,
          mode,
          clients: c,
          memories: texts.length,
          seconds: round1(seconds),
          per_second: round1(texts.length / seconds)
        })
      }
    }
  } finally {
    await server.stop()
  }
  return rows
}

const texts = turnTexts(root, perMode)
progress("capture: raw embedder")
const raw = await rawEmbedder(texts)
const databases: Array<[string, Record<string, string>]> = [["PGlite", {}]]
if (process.env.UMO_BENCH_DATABASE_URL)
  databases.push([
    "PostgreSQL",
    { DATABASE_URL: process.env.UMO_BENCH_DATABASE_URL, UMO_SIGNING_KEY: benchSigningKey() }
  ])
const rows: Array<Row> = []
for (const [name, env] of databases) rows.push(...(await throughput(name, env, texts)))
process.stderr.write("\n")

const withRatio = rows.map((r) => ({
  ...r,
  ratio_to_embedder: Math.round((r.per_second / raw.per_second) * 100) / 100
}))
const results = {
  benchmark: "capture throughput",
  machine: machine(),
  quick,
  texts_per_mode: perMode,
  raw_embedder: raw,
  runs: withRatio
}
const table = [
  `Raw embedder (${raw.model}, batches of 100): **${raw.per_second} texts/s**.`,
  "",
  "| database | call | clients | memories/s | ratio to raw embedder |",
  "|---|---|---|---|---|",
  ...withRatio.map(
    (r) =>
      `| ${r.database} | ${r.mode === "batch" ? "batch of 100" : "single"} | ${r.clients} | ${r.per_second} | ${r.ratio_to_embedder} |`
  )
].join("\n")
console.log(table)

publishResults(
  root,
  "capture",
  results,
  barChart({
    title: `Capture throughput (${raw.model}), memories/s`,
    yLabel: "memories / s",
    categories: withRatio.map(
      (r) =>
        `${r.database === "PGlite" ? "PGlite" : "PG"} ${r.mode === "batch" ? "batch" : "single"} ×${r.clients}`
    ),
    series: [{ name: "through the API", values: withRatio.map((r) => r.per_second) }],
    reference: { value: raw.per_second, label: `raw embedder ${raw.per_second}/s` }
  }),
  table
)
