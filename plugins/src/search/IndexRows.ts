import type { StoreError } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isoUtc, storeError } from "../storage/SqlFailure.js"
import type { IndexedRow } from "./AccountIndex.js"

/** A chain entry as the index follows it: what happened to which memory. */
export interface ChainEvent {
  readonly seq: number
  readonly kind: string
  readonly umo_id: string
  readonly superseded_by: string | null
}

interface Row {
  readonly umo_id: string
  readonly content: string | null
  readonly summary: string | null
  readonly source: string | null
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: string
  readonly categories: string
  readonly superseded_by: string | null
  readonly timestamp: string
  readonly created_at: string
  readonly entities: string
  readonly facts: string
  readonly terms: string
  readonly length: number
}

/**
 * A vector as `vector_send` writes it: dimensions (int16), an unused int16, then float4s, all
 * big-endian. Binary because parsing the text form of 100,000 vectors took most of a load. The
 * drivers give a bytea as bytes, or (in text mode) as `\x` and hex.
 */
export const decodeVector = (value: Uint8Array | string): Float32Array => {
  const bytes =
    typeof value === "string" ? Uint8Array.from(Buffer.from(value.replace(/^\\x/, ""), "hex")) : value
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const dims = view.getInt16(0)
  const vector = new Float32Array(dims)
  for (let i = 0; i < dims; i++) vector[i] = view.getFloat32(4 + 4 * i)
  return vector
}

/**
 * The most characters of content and summary together that the index holds for a memory: a
 * search reads a longer one (a document) from the store. A turn of dialogue is a few hundred.
 */
export const longestHeld = 4_000

/**
 * What the in-process index reads of the store: the memories of an account a page at a time or
 * by id, with their terms, facts and vectors; the chain's head and the entries after a position;
 * a query's stemmed terms. Reads only; scoped to one account each.
 */
export const makeIndexRows = (sql: SqlClient.SqlClient) => {
  // One that expires is read from the store each time too: its expiry may move without a chain entry.
  const held = `length(m.content) + length(m.summary) <= ${longestHeld} AND m.expires_at IS NULL`
  // The facts' subquery names the account's value, not m.account_id: Citus routes a statement to
  // one shard only when each of its tables is filtered by the value itself.
  const columns = (accountId: string) => sql`${sql.unsafe(`m.umo_id::text AS umo_id,
    CASE WHEN ${held} THEN m.content END AS content, CASE WHEN ${held} THEN m.summary END AS summary, m.source, m.user_id, m.agent_id, m.session_id,
    m.metadata::text AS metadata, m.categories::text AS categories, m.superseded_by::text AS superseded_by,
    ${isoUtc("m.content_time")} AS timestamp, ${isoUtc("m.created_at")} AS created_at, m.entities::text AS entities,`)}
    (SELECT coalesce(jsonb_agg(jsonb_build_object('slot', f.slot, 'value', f.value, 'mode', f.mode)), '[]')::text
      FROM memory_facts f WHERE f.account_id = ${accountId} AND f.umo_id = m.umo_id) AS facts,
    ${sql.unsafe(`(SELECT coalesce(json_agg(json_build_array(u.lexeme, coalesce(array_length(u.positions, 1), 1))), '[]')::text
      FROM unnest(m.search) u) AS terms,
    length(m.search) AS length`)}`

  /** The rows with their chunk vectors (read in one more query, in chunk order). */
  const withVectors = (accountId: string, rows: ReadonlyArray<Row>) =>
    Effect.gen(function* () {
      if (rows.length === 0) return []
      const chunks = yield* sql<{ umo_id: string; vector: Uint8Array | string }>`
        SELECT umo_id::text AS umo_id, vector_send(embedding) AS vector FROM memory_chunks
        WHERE account_id = ${accountId} AND ${sql.in(
          "umo_id",
          rows.map((r) => r.umo_id)
        )}
        ORDER BY umo_id, chunk_index`
      const vectors = new Map<string, Array<Float32Array>>()
      for (const chunk of chunks) {
        let list = vectors.get(chunk.umo_id)
        if (list === undefined) {
          list = []
          vectors.set(chunk.umo_id, list)
        }
        list.push(decodeVector(chunk.vector))
      }
      return rows.map(
        (row): IndexedRow => ({
          umo_id: row.umo_id,
          content: row.content,
          summary: row.summary,
          source: row.source,
          user_id: row.user_id,
          agent_id: row.agent_id,
          session_id: row.session_id,
          metadata: JSON.parse(row.metadata),
          categories: JSON.parse(row.categories),
          superseded_by: row.superseded_by,
          timestamp: row.timestamp,
          created_at: row.created_at,
          entities: JSON.parse(row.entities),
          facts: JSON.parse(row.facts),
          terms: JSON.parse(row.terms),
          length: Number(row.length),
          vectors: vectors.get(row.umo_id) ?? []
        })
      )
    })

  /** Up to `limit` memories of the account after `afterId` in id order (capture order). */
  const page = (accountId: string, afterId: string | null, limit: number) =>
    Effect.flatMap(
      sql<Row>`SELECT ${columns(accountId)} FROM memories m WHERE m.account_id = ${accountId}
        ${afterId === null ? sql`` : sql`AND m.umo_id > ${afterId}`}
        ORDER BY m.umo_id LIMIT ${limit}`,
      (rows) => withVectors(accountId, rows)
    ).pipe(Effect.mapError(storeError("could not read memories for the search index")))

  /** The account's memories among `umoIds` (those deleted meanwhile are missing). */
  const byIds = (accountId: string, umoIds: ReadonlyArray<string>) =>
    umoIds.length === 0
      ? Effect.succeed([])
      : Effect.flatMap(
          sql<Row>`SELECT ${columns(accountId)} FROM memories m WHERE m.account_id = ${accountId}
            AND ${sql.in("m.umo_id", umoIds)}`,
          (rows) => withVectors(accountId, rows)
        ).pipe(Effect.mapError(storeError("could not read memories for the search index")))

  /** The position of the account's last chain entry (0 before the first). */
  const head = (accountId: string): Effect.Effect<number, StoreError> =>
    Effect.map(sql<{ seq: number }>`SELECT seq FROM ledger_heads WHERE account_id = ${accountId}`, ([row]) =>
      Number(row?.seq ?? 0)
    ).pipe(Effect.mapError(storeError("could not read the chain's head")))

  /** The hash of the account's chain entry at `seq`, if there is one. */
  const entryHash = (accountId: string, seq: number) =>
    Effect.map(
      sql<{
        entry_hash: string
      }>`SELECT entry_hash FROM ledger_entries WHERE account_id = ${accountId} AND seq = ${seq}`,
      ([row]) => row?.entry_hash
    ).pipe(Effect.mapError(storeError("could not read the chain")))

  /** Up to `limit` chain entries after position `after`, in order. */
  const events = (accountId: string, after: number, limit: number) =>
    Effect.map(
      sql<ChainEvent>`SELECT seq, kind, umo_id::text AS umo_id, superseded_by::text AS superseded_by
        FROM ledger_entries WHERE account_id = ${accountId} AND seq > ${after} ORDER BY seq LIMIT ${limit}`,
      (rows): ReadonlyArray<ChainEvent> => rows.map((r) => ({ ...r, seq: Number(r.seq) }))
    ).pipe(Effect.mapError(storeError("could not read the chain")))

  /** The query's distinct stemmed terms, as the store's full text reads them. */
  const lexemes = (query: string) =>
    Effect.map(
      sql<{ lexeme: string }>`SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', ${query}))`,
      (rows) => rows.map((r) => r.lexeme)
    ).pipe(Effect.mapError(storeError("could not read the query's terms")))

  /** Accounts with memories, the largest first. */
  const accounts = Effect.map(
    sql<{ account_id: string }>`SELECT account_id::text AS account_id FROM search_totals
      WHERE documents > 0 ORDER BY documents DESC`,
    (rows) => rows.map((r) => r.account_id)
  ).pipe(Effect.mapError(storeError("could not list the accounts")))

  /** How many memories the account holds. */
  const count = (accountId: string) =>
    Effect.map(
      sql<{ documents: number }>`SELECT documents FROM search_totals WHERE account_id = ${accountId}`,
      ([row]) => Number(row?.documents ?? 0)
    ).pipe(Effect.mapError(storeError("could not count the account's memories")))

  return { page, byIds, head, entryHash, events, lexemes, accounts, count }
}

export type IndexRows = ReturnType<typeof makeIndexRows>
