import { type EmbedderModel, StoreError } from "@umo/core"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { storeError } from "./SqlFailure.js"
import { withStartupLock } from "./StartupLock.js"

/**
 * Pins the store to one embedder: the first start records its model and dimension and builds the
 * HNSW (cosine) index for that dimension; later starts with another embedder are refused, since
 * their vectors could not be compared with the stored ones.
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
    yield* sql.unsafe(
      `CREATE INDEX IF NOT EXISTS memory_chunks_embedding_hnsw_${pinned.dimensions} ON memory_chunks
       USING hnsw ((embedding::vector(${pinned.dimensions})) vector_cosine_ops)`
    )
    return pinned
  }).pipe(withStartupLock, Effect.mapError(storeError("could not pin the embedder")))
