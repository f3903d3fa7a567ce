import {
  type EmbedderModel,
  type LedgerEvent,
  type LedgerShape,
  type Metadata,
  recordHash,
  type StoreError
} from "@umo/core"
import { Array as Arr, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { readPin } from "./EmbedderPin.js"
import { isoUtc, storeError, transaction } from "./SqlFailure.js"
import { lockChainHead } from "./SqlLedger.js"
import { vectorText } from "./SqlMemoryRows.js"

/** An arbitrary constant naming the lock a re-embedding's switch takes alone and every capture shares. */
const switchLockKey = 7_414_209_119

/**
 * Taken, shared, by every transaction that stores memories, before its chain head: a switch
 * (which takes it alone) waits for those under way, and those after it read the pin it wrote.
 */
export const shareSwitchLock = (sql: SqlClient.SqlClient) =>
  sql`SELECT pg_advisory_xact_lock_shared(${switchLockKey})`

/** A memory still to embed with the new model: what its record hash covers, and its chunks' spans now. */
export interface PendingMemory {
  readonly account_id: string
  readonly umo_id: string
  readonly content: string
  readonly source: string | null
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: Metadata
  readonly timestamp: string
  readonly created_at: string
  readonly spans: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

/** A memory's chunks as the new model embedded them. */
export interface StagedMemory {
  readonly memory: PendingMemory
  readonly chunks: ReadonlyArray<{
    readonly start: number
    readonly end: number
    readonly vector: ReadonlyArray<number>
  }>
}

/** Where a memory stands in the order memories are re-embedded in. */
export interface Cursor {
  readonly account_id: string
  readonly umo_id: string
}

/** How far a re-embedding is: memories with the new model's vectors staged, of all. */
export interface ReembeddingProgress {
  readonly staged: number
  readonly total: number
}

/** Memories written into one statement, and chain entries appended in one call, at most. */
const page = 1_000

/**
 * A re-embedding in the database: the new model's vectors are staged beside the ones searches
 * read (`memory_chunks_next`), a batch at a time and resumably (what is staged stays staged; a
 * restart goes on with the memories that have none), then moved in by `switchTo`, one transaction
 * that also records, for each memory, a signed `reembed` entry with its new record hash, and pins
 * the store to the new model.
 */
export const makeReembeddingStore = (sql: SqlClient.SqlClient, ledger: LedgerShape) => {
  /** Staged vectors of another model than `model` (a re-embedding given up for another) go. */
  const begin = (model: string) =>
    sql`DELETE FROM memory_chunks_next WHERE model <> ${model}`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError("could not start the re-embedding"))
    )

  /** Memories after `after` (in account, id order) with no vectors of the new model staged, `limit` at most. */
  const pending = (after: Cursor | null, limit: number) =>
    Effect.gen(function* () {
      const rows = yield* sql<{
        account_id: string
        umo_id: string
        content: string
        source: string | null
        user_id: string | null
        agent_id: string | null
        session_id: string | null
        metadata: string
        timestamp: string
        created_at: string
      }>`
        SELECT m.account_id::text AS account_id, m.umo_id::text AS umo_id, m.content, m.source,
          m.user_id, m.agent_id, m.session_id, m.metadata::text AS metadata,
          ${sql.unsafe(isoUtc("m.content_time"))} AS timestamp, ${sql.unsafe(isoUtc("m.created_at"))} AS created_at
        FROM memories m
        WHERE ${after === null ? sql`true` : sql`(m.account_id, m.umo_id) > (${after.account_id}::uuid, ${after.umo_id}::uuid)`}
          AND NOT EXISTS (SELECT 1 FROM memory_chunks_next n
            WHERE n.account_id = m.account_id AND n.umo_id = m.umo_id AND n.chunk_index = 0)
        ORDER BY m.account_id, m.umo_id LIMIT ${limit}`
      const spans = new Map<string, Array<{ start: number; end: number }>>()
      for (const [accountId, ids] of Object.entries(Arr.groupBy(rows, (r) => r.account_id))) {
        const chunks = yield* sql<{ umo_id: string; start_offset: number; end_offset: number }>`
          SELECT umo_id::text AS umo_id, start_offset, end_offset FROM memory_chunks
          WHERE account_id = ${accountId} AND ${sql.in(
            "umo_id",
            ids.map((r) => r.umo_id)
          )}
          ORDER BY umo_id, chunk_index`
        for (const c of chunks) {
          const list = spans.get(c.umo_id) ?? []
          list.push({ start: c.start_offset, end: c.end_offset })
          spans.set(c.umo_id, list)
        }
      }
      return rows.map(
        (r): PendingMemory => ({
          ...r,
          metadata: JSON.parse(r.metadata) as Metadata,
          spans: spans.get(r.umo_id) ?? []
        })
      )
    }).pipe(Effect.mapError(storeError("could not read the memories left to re-embed")))

  /**
   * Stages memories' new vectors, each with the record hash they give it. One deleted meanwhile
   * is passed over (its rows are locked against deletion while they are written).
   */
  const insertStaged = (model: EmbedderModel, staged: ReadonlyArray<StagedMemory>) =>
    Effect.forEach(
      Object.entries(Arr.groupBy(staged, (s) => s.memory.account_id)),
      ([accountId, memories]) =>
        Effect.gen(function* () {
          const present = new Set(
            (yield* sql<{ umo_id: string }>`
              SELECT umo_id::text AS umo_id FROM memories
              WHERE account_id = ${accountId} AND ${sql.in(
                "umo_id",
                memories.map((s) => s.memory.umo_id)
              )}
              FOR KEY SHARE`).map((r) => r.umo_id)
          )
          const rows = memories
            .filter((s) => present.has(s.memory.umo_id))
            .flatMap(({ memory, chunks }) => {
              const record_hash = recordHash({
                ...memory,
                embedding_model: model.id,
                chunks: chunks.map((c, index) => ({ index, ...c }))
              })
              return chunks.map((c, chunk_index) => ({
                account_id: accountId,
                umo_id: memory.umo_id,
                chunk_index,
                start_offset: c.start,
                end_offset: c.end,
                embedding: vectorText(c.vector),
                model: model.id,
                record_hash
              }))
            })
          for (let i = 0; i < rows.length; i += page) {
            const [first, ...rest] = rows.slice(i, i + page)
            if (first !== undefined)
              yield* sql`INSERT INTO memory_chunks_next ${sql.insert([first, ...rest])} ON CONFLICT DO NOTHING`
          }
        }),
      { discard: true }
    )

  const stage = (model: EmbedderModel, staged: ReadonlyArray<StagedMemory>) =>
    transaction(sql, insertStaged(model, staged)).pipe(
      Effect.mapError(storeError("could not stage the re-embedded vectors"))
    )

  const progress = sql<{ staged: number; total: number }>`
    SELECT (SELECT count(*)::int FROM memory_chunks_next WHERE chunk_index = 0) AS staged,
      (SELECT count(*)::int FROM memories) AS total`.pipe(
    Effect.map(
      ([row]): ReembeddingProgress => ({ staged: Number(row?.staged ?? 0), total: Number(row?.total ?? 0) })
    ),
    Effect.mapError(storeError("could not read the re-embedding's progress"))
  )

  /**
   * Moves the store to `model`, in one transaction, once every memory has its vectors staged:
   * waits for the captures under way (the switch lock), embeds the few captured since the last
   * batch (`embed`; more than `atMost` and it returns `false` without a change, for the caller to
   * stage them first), appends each memory's `reembed` entry, moves the staged vectors in and pins
   * the store. Captures wait meanwhile; searches go on reading the vectors of before until it commits.
   * `true` once switched (also when another process switched it first).
   */
  const switchTo = (
    model: EmbedderModel,
    embed: (memories: ReadonlyArray<PendingMemory>) => Effect.Effect<ReadonlyArray<StagedMemory>, StoreError>,
    atMost: number
  ) =>
    transaction(
      sql,
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${switchLockKey})`
        const pin = yield* readPin(sql)
        if (pin.id === model.id) return true
        const left = yield* pending(null, atMost + 1)
        if (left.length > atMost) return false
        if (left.length > 0) yield* insertStaged(model, yield* embed(left))
        const accounts = yield* sql<{ account_id: string }>`
          SELECT DISTINCT account_id::text AS account_id FROM memories ORDER BY 1`
        for (const { account_id: accountId } of accounts) {
          // A deletion or erasure of the account's memories waits for the switch (not read, then gone).
          yield* lockChainHead(sql, accountId)
          for (let after = ""; ; ) {
            const moved = yield* sql<{
              umo_id: string
              content_hash: string
              semantic_hash: string
              record_hash: string
            }>`
              SELECT m.umo_id::text AS umo_id, m.content_hash, m.semantic_hash, n.record_hash
              FROM memories m JOIN memory_chunks_next n
                ON n.account_id = m.account_id AND n.umo_id = m.umo_id AND n.chunk_index = 0
              WHERE m.account_id = ${accountId} AND n.account_id = ${accountId}
                ${after === "" ? sql`` : sql`AND m.umo_id > ${after}::uuid`}
              ORDER BY m.umo_id LIMIT ${page}`
            if (moved.length === 0) break
            yield* ledger.appendMany(
              accountId,
              moved.map((r): LedgerEvent => ({ kind: "reembed", ...r }))
            )
            after = moved.at(-1)!.umo_id
          }
          // One statement for the account: one per page of the entries above made PostgreSQL read
          // all the account's staged rows each time (its statistics still saw an empty table), 1 to
          // 2.5 s a page of 1,000 at 100,000 memories.
          yield* sql`UPDATE memories m SET embedding_model = ${model.id}, record_hash = n.record_hash
            FROM memory_chunks_next n
            WHERE m.account_id = ${accountId} AND n.account_id = ${accountId} AND n.umo_id = m.umo_id
              AND n.chunk_index = 0`
          yield* sql`DELETE FROM memory_chunks WHERE account_id = ${accountId}`
          yield* sql`INSERT INTO memory_chunks (account_id, umo_id, chunk_index, start_offset, end_offset, embedding)
            SELECT account_id, umo_id, chunk_index, start_offset, end_offset, embedding FROM memory_chunks_next
            WHERE account_id = ${accountId}`
          yield* sql`DELETE FROM memory_chunks_next WHERE account_id = ${accountId}`
        }
        yield* sql`UPDATE store_settings SET value = CASE key WHEN 'embedding_model' THEN ${model.id}
          ELSE ${String(model.dimensions)} END
          WHERE key IN ('embedding_model', 'embedding_dimensions')`
        return true
      })
    ).pipe(Effect.mapError(storeError("could not switch the store to the new embedder")))

  return { begin, pending, stage, progress, switchTo }
}

export type ReembeddingStore = ReturnType<typeof makeReembeddingStore>
