/**
 * A separate OS process that captures memories into one account on PostgreSQL, for the
 * two-process chain test. Usage: tsx append-worker.ts DATABASE_URL ACCOUNT_ID COUNT
 */
import { MemoryStore } from "@umo/core"
import { Database } from "@umo/plugins"
import { Effect } from "effect"
import { capturedPool, recapture, storageLayer } from "./fixtures.js"

const [url, accountId, count] = process.argv.slice(2)

const program = Effect.gen(function* () {
  const store = yield* MemoryStore
  const pool = yield* capturedPool
  yield* Effect.forEach(
    Array.from({ length: Number(count) }, (_, i) => recapture(pool[i % pool.length]!)),
    (umo) => store.insert(accountId!, umo),
    { concurrency: 4 }
  )
})

Effect.runPromise(program.pipe(Effect.provide(storageLayer(Database.postgres(url!))))).then(
  () => process.exit(0),
  (error) => {
    console.error(String(error))
    process.exit(1)
  }
)
