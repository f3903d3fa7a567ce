import type { RecalledMemory, StoredMemory } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isoUtc } from "./SqlFailure.js"

/** A row of `memories` as the columns of `memoryColumns` read it (JSON columns as text). */
export interface MemoryRow {
  readonly account_id: string
  readonly umo_id: string
  readonly content: string
  readonly summary: string
  readonly entities: string
  readonly svo_triples: string
  readonly topics: string
  readonly tone: string
  readonly language: string
  readonly quality_score: number
  readonly source: string | null
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: string
  readonly supersedes: string
  readonly superseded_by: string | null
  readonly superseded_at: string | null
  readonly timestamp: string
  readonly created_at: string
  readonly pipeline: string
  readonly extensions: string
  readonly content_hash: string
  readonly semantic_hash: string
  readonly record_hash: string
  readonly embedding_model: string
  readonly imported_from: string | null
  readonly expires_at: string | null
  readonly immutable: boolean
  /** A JSON list. */
  readonly categories: string
}

/**
 * The columns of a whole memory of `accountId`, JSON as text and times as ISO UTC (the same on
 * both engines). The subquery names the account's value rather than `memories.account_id`: Citus
 * routes a statement to one shard only when each of its tables is filtered by the value itself.
 */
export const memoryColumns = (sql: SqlClient.SqlClient, accountId: string) =>
  sql`${sql.unsafe(`account_id::text AS account_id, umo_id::text AS umo_id, content, summary,
    entities::text AS entities, svo_triples::text AS svo_triples, topics::text AS topics, tone::text AS tone,
    language, quality_score, source, user_id, agent_id, session_id, metadata::text AS metadata,`)}
    (SELECT coalesce(jsonb_agg(p.umo_id::text ORDER BY p.content_time, p.umo_id), '[]')::text FROM memories p
      WHERE p.account_id = ${accountId} AND p.superseded_by = memories.umo_id) AS supersedes,
    ${sql.unsafe(`superseded_by::text AS superseded_by, ${isoUtc("superseded_at")} AS superseded_at,
    ${isoUtc("content_time")} AS timestamp, ${isoUtc("created_at")} AS created_at,
    pipeline::text AS pipeline, extensions::text AS extensions, content_hash, semantic_hash, record_hash, embedding_model,
    imported_from::text AS imported_from, ${isoUtc("expires_at")} AS expires_at, immutable,
    categories::text AS categories`)}`

export const toStored = (row: MemoryRow): StoredMemory => ({
  ...row,
  quality_score: Number(row.quality_score),
  entities: JSON.parse(row.entities),
  svo_triples: JSON.parse(row.svo_triples),
  topics: JSON.parse(row.topics),
  tone: JSON.parse(row.tone),
  pipeline: JSON.parse(row.pipeline),
  extensions: JSON.parse(row.extensions),
  metadata: JSON.parse(row.metadata),
  supersedes: JSON.parse(row.supersedes),
  imported_from: row.imported_from === null ? null : JSON.parse(row.imported_from),
  categories: JSON.parse(row.categories)
})

/** A row of `memories` as `recalledColumns` reads it. */
export type RecalledRow = Pick<MemoryRow, keyof RecalledMemory>

/** The columns of what search returns of a memory (`RecalledMemory`). */
export const recalledColumns = (sql: SqlClient.SqlClient) =>
  sql.unsafe(`umo_id::text AS umo_id, content, summary, entities::text AS entities,
    ${isoUtc("content_time")} AS timestamp, ${isoUtc("created_at")} AS created_at,
    source, user_id, agent_id, session_id, metadata::text AS metadata, superseded_by::text AS superseded_by,
    ${isoUtc("expires_at")} AS expires_at, categories::text AS categories`)

export const toRecalled = (row: RecalledRow): RecalledMemory => ({
  ...row,
  entities: JSON.parse(row.entities),
  metadata: JSON.parse(row.metadata),
  categories: JSON.parse(row.categories)
})

/** pgvector's text form; PGlite mishandles JS arrays of vector strings (DESIGN.md). */
export const vectorText = (vector: ReadonlyArray<number>) => `[${vector.join(",")}]`

/** A memory's chunks with their vectors, in order (none when it does not exist in the account). */
export const chunksOf = (sql: SqlClient.SqlClient, accountId: string, umoId: string) =>
  Effect.map(
    sql<{ chunk_index: number; start_offset: number; end_offset: number; embedding: string }>`
      SELECT chunk_index, start_offset, end_offset, embedding::text AS embedding FROM memory_chunks
      WHERE account_id = ${accountId} AND umo_id = ${umoId} ORDER BY chunk_index`,
    (rows) =>
      rows.map((r) => ({
        index: r.chunk_index,
        start: r.start_offset,
        end: r.end_offset,
        vector: JSON.parse(r.embedding) as Array<number>
      }))
  )
