import { type EmbedderModel, StoreError } from "@umo/core"
import { Config, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { storeError } from "./SqlFailure.js"
import { withStartupLock } from "./StartupLock.js"

/** The model a store's vectors are of, and their length; an id of "" before the first start. */
export interface Pin {
  readonly id: string
  readonly dimensions: number
}

/** The embedder the store is pinned to (its id and dimension), as the caller's transaction sees it. */
export const readPin = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ key: string; value: string }>`
      SELECT key, value FROM store_settings WHERE key IN ('embedding_model', 'embedding_dimensions')`,
    (rows): Pin => {
      const setting = (key: string) => rows.find((r) => r.key === key)?.value ?? ""
      return { id: setting("embedding_model"), dimensions: Number(setting("embedding_dimensions")) }
    }
  )

/**
 * Pins the store to one embedder: the first start records its model and dimension; later starts
 * with another embedder are refused, since their vectors could not be compared with the stored ones.
 */
export const pinEmbedder = (model: EmbedderModel) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO store_settings (key, value) VALUES ('embedding_model', ${model.id}), ('embedding_dimensions', ${String(model.dimensions)})
               ON CONFLICT (key) DO NOTHING`
    const pinned = yield* readPin(sql)
    if (pinned.id !== model.id || pinned.dimensions !== model.dimensions) {
      return yield* new StoreError({
        reason: "EmbedderMismatch",
        detail:
          `this store's memories were embedded with ${pinned.id} (${pinned.dimensions} dimensions) but the configured ` +
          `embedder is ${model.id} (${model.dimensions}); configure ${pinned.id} again, or set UMO_REEMBED=on to re-embed the stored memories with ${model.id} while the server keeps answering with ${pinned.id}`
      })
    }
    return pinned
  }).pipe(withStartupLock, Effect.mapError(storeError("could not pin the embedder")))

/** Whether the database is PGlite (PostgreSQL compiled to WebAssembly, in this process). */
export const isPglite = (sql: SqlClient.SqlClient) =>
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
    yield* sql.unsafe(keep ? createGraph(dimensions, "") : `DROP INDEX IF EXISTS ${graphName(dimensions)}`)
  }).pipe(withStartupLock, Effect.mapError(storeError("could not build or drop the vector graph")))

const graphName = (dimensions: number) => `memory_chunks_embedding_hnsw_${dimensions}`
const createGraph = (dimensions: number, how: "" | "CONCURRENTLY") =>
  `CREATE INDEX ${how} IF NOT EXISTS ${graphName(dimensions)} ON memory_chunks USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops)`

/**
 * Builds the vector graph without holding up writes (PostgreSQL's CREATE INDEX CONCURRENTLY,
 * outside a transaction): after a re-embedding's switch, when the store already serves, a graph
 * over 100,000 chunks takes minutes to build. PGlite builds it the plain way (it has one
 * connection: nothing to hold up).
 */
const buildGraphConcurrently = (dimensions: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const embedded = yield* isPglite(sql).pipe(
      Effect.mapError(storeError("could not read the database's version"))
    )
    if (embedded) return yield* keepVectorGraph(dimensions, true)
    yield* sql.unsafe(createGraph(dimensions, "CONCURRENTLY")).pipe(
      // A concurrent build that fails leaves an invalid index behind, which IF NOT EXISTS would keep.
      Effect.tapError(() => Effect.ignore(sql.unsafe(`DROP INDEX IF EXISTS ${graphName(dimensions)}`))),
      Effect.mapError(storeError("could not build the vector graph"))
    )
  })

/**
 * Keeps or drops the vector graph as `UMO_SQL_VECTOR_INDEX` says: `on`, `off`, or `auto` (the
 * default): kept unless the database is PGlite and the in-process index serves the searches
 * (`inProcessIndex`), which then reach the database only while an account loads, catches up or
 * does not fit the index's budget. On PostgreSQL a capture's inserts into the graph cost less and
 * hold up no reader, and other processes (replicas, shards) may search through it.
 */
export const settleVectorGraph = (
  dimensions: number,
  inProcessIndex: boolean,
  { concurrently = false }: { readonly concurrently?: boolean } = {}
) =>
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
    yield* keep && concurrently ? buildGraphConcurrently(dimensions) : keepVectorGraph(dimensions, keep)
  })
