import { type EmbedderModel, StoreError } from "@umo/core"
import { Config, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { storeError } from "./SqlFailure.js"
import { withStartupLock } from "./StartupLock.js"

/**
 * Pins the store to one embedder: the first start records its model and dimension; later starts
 * with another embedder are refused, since their vectors could not be compared with the stored ones.
 */
export const pinEmbedder = (model: EmbedderModel) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO store_settings (key, value) VALUES ('embedding_model', ${model.id}), ('embedding_dimensions', ${String(model.dimensions)})
               ON CONFLICT (key) DO NOTHING`
    const rows = yield* sql<{ key: string; value: string }>`
      SELECT key, value FROM store_settings WHERE key IN ('embedding_model', 'embedding_dimensions')`
    const setting = (key: string) => rows.find((r) => r.key === key)?.value ?? ""
    const pinned = { id: setting("embedding_model"), dimensions: Number(setting("embedding_dimensions")) }
    if (pinned.id !== model.id || pinned.dimensions !== model.dimensions) {
      return yield* new StoreError({
        reason: "EmbedderMismatch",
        detail:
          `this store's memories were embedded with ${pinned.id} (${pinned.dimensions} dimensions) but the configured ` +
          `embedder is ${model.id} (${model.dimensions}); configure ${pinned.id} again, or re-embed the stored memories first`
      })
    }
    return pinned
  }).pipe(withStartupLock, Effect.mapError(storeError("could not pin the embedder")))

/** Whether the database is PGlite (PostgreSQL compiled to WebAssembly, in this process). */
const isPglite = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ embedded: boolean }>`SELECT version() LIKE '%emscripten%' AS embedded`,
    ([row]) => row?.embedded === true
  )

/**
 * Builds pgvector's HNSW (cosine) index over the chunks' vectors of `dimensions`, or drops it.
 * It serves the database's vector searches over large selections; without it they rank every
 * chunk of the account exactly. Keeping it costs every capture: on PGlite, inserting 100 chunks
 * into it took 350–550 ms of a 560–710 ms capture transaction, during which PGlite answers nothing
 * else, while an exact scan of 10,000 chunks takes 75 ms there (40,000: 340 ms).
 */
export const keepVectorGraph = (dimensions: number, keep: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const name = `memory_chunks_embedding_hnsw_${dimensions}`
    yield* sql.unsafe(
      keep
        ? `CREATE INDEX IF NOT EXISTS ${name} ON memory_chunks USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops)`
        : `DROP INDEX IF EXISTS ${name}`
    )
  }).pipe(withStartupLock, Effect.mapError(storeError("could not build or drop the vector graph")))

/**
 * Keeps or drops the vector graph as `UMO_SQL_VECTOR_INDEX` says: `on`, `off`, or `auto` (the
 * default): kept unless the database is PGlite and the in-process index serves the searches
 * (`inProcessIndex`), which then reach the database only while an account loads, catches up or
 * does not fit the index's budget. On PostgreSQL a capture's inserts into the graph cost less and
 * hold up no reader, and other processes (replicas, shards) may search through it.
 */
export const settleVectorGraph = (dimensions: number, inProcessIndex: boolean) =>
  Effect.gen(function* () {
    const configured = yield* Config.Literals(["auto", "on", "off"], "UMO_SQL_VECTOR_INDEX").pipe(
      Config.withDefault<"auto" | "on" | "off">("auto")
    )
    const sql = yield* SqlClient.SqlClient
    const keep =
      configured === "auto"
        ? !inProcessIndex ||
          !(yield* isPglite(sql).pipe(Effect.mapError(storeError("could not read the database's version"))))
        : configured === "on"
    yield* keepVectorGraph(dimensions, keep)
  })
