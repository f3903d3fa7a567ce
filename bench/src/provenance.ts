/**
 * Provenance cost: how long a memory's proof and an offline entry check take as the account's
 * chain grows from 1,000 to 100,000 entries, next to a full chain audit (which is linear).
 *
 *   npm run bench:provenance            # 1k and 100k entries, PGlite (and PostgreSQL if DATABASE_URL)
 *   npm run bench:provenance -- --quick # 200 and 1,000
 *
 * Filler entries are appended through the real Ledger (signed, checkpointed), in transactions of
 * 1,000 to keep set-up time down; the measured memories are captured through the real pipeline.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { AccountStore, Ledger, MemoryProvenance, MemoryStore, Pipeline, verifyEntry } from "@umo/core"
import { Database, defaultPlugins, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { Effect, type Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { barChart } from "./support/Chart.js"
import { quick } from "./support/Cli.js"
import { percentile } from "./support/Stats.js"

const sizes = quick ? [200, 1_000] : [1_000, 100_000]
const samples = 200

const hex = () => randomBytes(32).toString("hex")
const timeIt = async (n: number, f: () => Promise<unknown>) => {
  const times: Array<number> = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await f()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95) }
}

const stack = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  StorageStack.layer({
    database,
    signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: generatedKey }),
    embedder: UseLiteEmbedder.layer()
  })
const generatedKey = (await import("node:crypto"))
  .generateKeyPairSync("ed25519")
  .privateKey.export({ format: "pem", type: "pkcs8" })
  .toString()

const measure = (size: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ledger = yield* Ledger
    const store = yield* MemoryStore
    const account = (yield* (yield* AccountStore).ensureAccount(`bench-${size}-${hex().slice(0, 8)}`))
      .account_id
    const pipeline = Pipeline.make(defaultPlugins())
    const early = yield* pipeline.process({
      content: "Early memory: Ada Lovelace wrote the first program in 1843."
    })
    const late = yield* pipeline.process({
      content: "Late memory: Grace Hopper found a moth in the Mark II in 1947."
    })
    yield* store.insert(account, early)
    const filler = (count: number) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(count / 1000) }, (_, b) => Math.min(1000, count - b * 1000)),
        (n) =>
          sql.withTransaction(
            Effect.forEach(Array.from({ length: n }), () =>
              ledger.append(account, {
                kind: "capture",
                umo_id: crypto.randomUUID(),
                content_hash: hex(),
                semantic_hash: hex(),
                record_hash: hex()
              })
            )
          ),
        { discard: true }
      )
    const started = performance.now()
    yield* filler(size - 2)
    yield* store.insert(account, late)
    const setupSeconds = (performance.now() - started) / 1000
    const run = Effect.runPromise
    const provenance = yield* MemoryProvenance
    const context = yield* Effect.context<MemoryStore | Ledger>()
    const proofOf = (umoId: string) => () =>
      run(provenance.proof(account, umoId).pipe(Effect.provide(context)))
    const proof = Option.getOrThrow(yield* provenance.proof(account, late.umo_id))
    if (!proof.valid || !proof.hash_chain_valid) throw new Error("bench chain does not verify")
    const latest = yield* Effect.promise(() => timeIt(samples, proofOf(late.umo_id)))
    const oldest = yield* Effect.promise(() => timeIt(samples, proofOf(early.umo_id)))
    const offline = yield* Effect.promise(() =>
      timeIt(samples, async () => verifyEntry(proof.entry!, ledger.publicKeyJwk))
    )
    const auditStart = performance.now()
    const audit = yield* ledger.audit(account)
    return {
      entries: audit.entries,
      setup_seconds: Number(setupSeconds.toFixed(1)),
      proof_latest: latest,
      proof_oldest: oldest,
      offline_entry_check: offline,
      full_audit_ms: Number((performance.now() - auditStart).toFixed(1)),
      audit_valid: audit.valid
    }
  })

const databases: Array<[string, () => Layer.Layer<SqlClient.SqlClient, unknown>]> = [
  ["PGlite", () => Database.pglite()]
]
if (process.env["DATABASE_URL"])
  databases.push(["PostgreSQL", () => Database.postgres(process.env["DATABASE_URL"]!)])

const results: Array<Record<string, unknown>> = []
for (const [name, database] of databases) {
  for (const size of sizes) {
    process.stdout.write(`provenance: ${name}, ${size.toLocaleString()} entries… `)
    const result = await Effect.runPromise(measure(size).pipe(Effect.provide(stack(database()))))
    console.log(`proof p50 ${result.proof_latest.p50_ms.toFixed(2)} ms, audit ${result.full_audit_ms} ms`)
    results.push({ database: name, ...result })
  }
}

const round = (x: number) => Number(x.toFixed(3))
const rows = results.map((r) => {
  const latest = r["proof_latest"] as { p50_ms: number; p95_ms: number }
  const oldest = r["proof_oldest"] as { p50_ms: number; p95_ms: number }
  return `| ${r["database"]} | ${(r["entries"] as number).toLocaleString("en")} | ${round(latest.p50_ms)} / ${round(latest.p95_ms)} | ${round(oldest.p50_ms)} / ${round(oldest.p95_ms)} | ${r["full_audit_ms"]} |`
})
const report = {
  bench: "provenance",
  date: new Date().toISOString(),
  machine: {
    cpus: (await import("node:os")).cpus().length,
    memory_gb: Math.round((await import("node:os")).totalmem() / 2 ** 30),
    node: process.version
  },
  quick,
  samples,
  results
}
mkdirSync("bench/results", { recursive: true })
writeFileSync(`bench/results/provenance${quick ? "-quick" : ""}.json`, `${JSON.stringify(report, null, 2)}\n`)
writeFileSync(
  `bench/results/provenance${quick ? "-quick" : ""}.svg`,
  barChart({
    title: "Proof latency of the latest memory, p50 (ms), by chain length",
    yLabel: "ms",
    categories: results.map((r) => `${r["database"]} ${(r["entries"] as number).toLocaleString("en")}`),
    series: [
      { name: "proof p50", values: results.map((r) => (r["proof_latest"] as { p50_ms: number }).p50_ms) }
    ]
  })
)
console.log(
  [
    "| database | entries | proof, latest memory p50 / p95 ms | proof, oldest memory p50 / p95 ms | full audit ms |",
    "|---|---|---|---|---|",
    ...rows
  ].join("\n")
)
