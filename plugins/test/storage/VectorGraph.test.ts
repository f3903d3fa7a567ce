import { rmSync } from "node:fs"
import { it } from "@effect/vitest"
import { AccountStore, MemoryStore } from "@umo/core"
import { Database } from "@umo/plugins"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { makeSearch } from "../../src/storage/SqlMemorySearch.js"
import { plainWrites } from "./contract.js"
import { capturedPool, recapture, storageLayer } from "./fixtures.js"
import { scratchDatabase } from "./ScratchDatabase.js"

/** Whether pgvector's HNSW graph over the test embedder's 16-dimension vectors exists. */
const graphExists = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT 1 FROM pg_indexes WHERE indexname = 'memory_chunks_embedding_hnsw_16'`
  return rows.length === 1
})

/** Runs `effect` on the whole storage stack over `database`, configured by `env`. */
const onStack = <A, E, R, E2>(
  database: Layer.Layer<SqlClient.SqlClient, E2>,
  env: Record<string, string>,
  effect: Effect.Effect<A, E, R>
) =>
  effect.pipe(
    Effect.provide(
      storageLayer(database).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
    )
  )

describe("the database's vector graph", () => {
  it.effect(
    "on PGlite, dropped while the in-process index serves searches, kept when asked or without it",
    () =>
      Effect.gen(function* () {
        expect(yield* onStack(Database.pglite(), {}, graphExists)).toBe(false)
        expect(yield* onStack(Database.pglite(), { UMO_SQL_VECTOR_INDEX: "on" }, graphExists)).toBe(true)
        expect(yield* onStack(Database.pglite(), { UMO_SEARCH_INDEX: "false" }, graphExists)).toBe(true)
      })
  )

  it.effect(
    "on PGlite, one built before is dropped at the next start; the database's search then ranks exactly",
    () =>
      Effect.gen(function* () {
        const dataDir = `/tmp/umo-vector-graph-${process.pid}-${Date.now()}`
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const database = () => Database.pglite({ dataDir })
        const pool = yield* capturedPool
        const account = yield* onStack(
          database(),
          { UMO_SQL_VECTOR_INDEX: "on" },
          Effect.gen(function* () {
            expect(yield* graphExists).toBe(true)
            const id = (yield* (yield* AccountStore).ensureAccount("graph")).account_id
            yield* (yield* MemoryStore).insertMany(id, plainWrites(pool.map(recapture)))
            return id
          })
        )
        yield* onStack(
          database(),
          {},
          Effect.gen(function* () {
            expect(yield* graphExists).toBe(false)
            // `exactBelow: 0` takes the branch a large account takes, which the graph served.
            const search = makeSearch(yield* SqlClient.SqlClient, { exactBelow: 0 })
            for (const umo of pool) {
              const [best] = yield* search.searchVector(account, umo.embedding.chunks[0]!.vector, {
                limit: 3
              })
              expect(best?.score).toBeCloseTo(1, 5)
            }
          })
        )
      })
  )

  const url = process.env["UMO_TEST_DATABASE_URL"]
  describe.runIf(url)("on PostgreSQL", () => {
    it.effect("kept by default, dropped only when asked", () =>
      Effect.gen(function* () {
        const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_vector_graph_${process.pid}`)
        yield* Effect.acquireRelease(Effect.promise(scratch.create), () => Effect.promise(scratch.drop))
        const database = () => Database.postgres(scratch.url)
        expect(yield* onStack(database(), {}, graphExists)).toBe(true)
        expect(yield* onStack(database(), { UMO_SQL_VECTOR_INDEX: "off" }, graphExists)).toBe(false)
        expect(yield* onStack(database(), {}, graphExists)).toBe(true)
      })
    )
  })
})
