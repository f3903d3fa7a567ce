import {
  anyMemory,
  type Candidate,
  Embedder,
  isAnyMemory,
  MemorySearch,
  type MemorySearchShape,
  makeMemorySearch,
  type Neighbours,
  type SearchOptions,
  type Selection
} from "@umo/core"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { keepVectorGraph, pinEmbedder } from "./EmbedderPin.js"
import { readClient } from "./ReadReplicas.js"
import { isoUtc, storeError, transaction } from "./SqlFailure.js"
import { filterSql } from "./SqlFilter.js"
import { type RecalledRow, recalledColumns, toRecalled, vectorText } from "./SqlMemoryRows.js"

/** BM25 parameters: the usual k1 and b (Robertson and Zaragoza, 2009). */
const k1 = 1.2
const b = 0.75
/**
 * How many memories holding query terms BM25 scores at most when it looks for candidates: the
 * rarest terms first, while the memories holding them add up to no more than this.
 */
const defaultCandidateBudget = 1_000
/**
 * Accounts with fewer memories than this are searched by an exact scan instead of the HNSW index,
 * which is shared by all accounts and filters after the scan: in a large database, a small
 * account's memories are too few among the scanned neighbours to be found reliably. Below this
 * size the exact scan costs about what the index does.
 */
const defaultExactBelow = 2_000

/** Rows of a search query as candidates (drivers may return numeric scores as strings). */
const toCandidates = (rows: ReadonlyArray<{ umo_id: string; score: number }>): ReadonlyArray<Candidate> =>
  rows.map((r) => ({ umo_id: r.umo_id, score: Number(r.score) }))

/**
 * The search queries of the SQL store: nearest chunks, BM25 over the stored tsvector, the
 * memories next to a memory in its source's timeline, and what ranking reads of candidates.
 */
export const makeSearch = (
  sql: SqlClient.SqlClient,
  {
    candidateBudget = defaultCandidateBudget,
    exactBelow = defaultExactBelow
  }: { readonly candidateBudget?: number; readonly exactBelow?: number } = {}
) => {
  const onlyIds = (column: string, options: SearchOptions) =>
    options.ids === undefined ? sql`` : sql`AND ${sql.in(column, options.ids)}`
  const inMemory = filterSql(sql, "m")
  /** Keeps the rows of `alias` (which has a `umo_id`) whose memory is in the selection. */
  const selected = (accountId: string, alias: string, selection: Selection) =>
    selection.includeSuperseded && isAnyMemory(selection.filter ?? anyMemory)
      ? sql``
      : sql`AND EXISTS (SELECT 1 FROM memories m WHERE m.account_id = ${accountId}
          AND m.umo_id = ${sql.literal(alias)}.umo_id AND ${inMemory.selected(selection)})`
  /**
   * The selected memories, as many as `exactBelow` at most: a narrower selection than that
   * (one user's memories in a large account, say) is searched exactly, all of it, rather than
   * through indexes built for the whole account, where its few memories could be passed over.
   */
  const narrow = (accountId: string, selection: Selection) =>
    sql`SELECT m.umo_id FROM memories m WHERE m.account_id = ${accountId} AND ${inMemory.selected(selection)}
      LIMIT ${exactBelow}`

  const searchVector: MemorySearchShape["searchVector"] = (accountId, vector, options) => {
    if (options.ids?.length === 0) return Effect.succeed([])
    const q = vectorText(vector)
    const inSelection = selected(accountId, "c", options)
    // The query's dimension is the store's: the HNSW index is on that cast. Chunks of another
    // dimension are passed over, not compared: a query embedded just before a re-embedding's
    // switch finds the new vectors (see SqlReembedding), and comparing them would fail the search.
    const dims = vector.length
    const distance = sql.unsafe(`c.embedding::vector(${dims}) <=> `)
    const similarity = sql`1 - (${distance}${q}::vector)`
    const chunks = sql`FROM memory_chunks c WHERE c.account_id = ${accountId} AND vector_dims(c.embedding) = ${dims} ${inSelection} ${onlyIds("c.umo_id", options)}`
    // The best chunk stands for its memory. Given ids, every chunk of those memories is scored
    // exactly. Otherwise a selection below `exactBelow` memories is scanned exactly (the fence
    // of OFFSET 0 keeps the planner off the index), and a larger one through the HNSW index.
    // Only the branch whose size test holds runs: the test is a one-time filter, over
    // search_totals when the selection is the account's current memories, else over `narrow`.
    const pool = options.limit * 4
    const filtered = !isAnyMemory(options.filter ?? anyMemory)
    const size = filtered
      ? sql`(SELECT count(*) FROM narrowed)`
      : sql`(SELECT coalesce(max(documents), 0) FROM search_totals WHERE account_id = ${accountId})`
    const exactChunks = filtered
      ? sql`FROM narrowed n JOIN memory_chunks c ON c.account_id = ${accountId} AND c.umo_id = n.umo_id AND vector_dims(c.embedding) = ${dims}`
      : chunks
    const nearest =
      options.ids === undefined
        ? sql`(SELECT c.umo_id, ${similarity} AS similarity ${chunks} AND ${size} >= ${exactBelow}
              ORDER BY ${distance}${q}::vector LIMIT ${pool})
            UNION ALL
            (SELECT umo_id, similarity FROM (SELECT c.umo_id, ${similarity} AS similarity ${exactChunks}
              ${filtered ? sql`WHERE` : sql`AND`} ${size} < ${exactBelow} OFFSET 0) exact ORDER BY similarity DESC LIMIT ${pool})`
        : sql`SELECT c.umo_id, ${similarity} AS similarity ${chunks}`
    const query = sql<{ umo_id: string; score: number }>`
      ${filtered && options.ids === undefined ? sql`WITH narrowed AS MATERIALIZED (${narrow(accountId, options)})` : sql``}
      SELECT umo_id::text AS umo_id, max(similarity) AS score FROM (${nearest}) nearest
      GROUP BY umo_id ORDER BY score DESC, umo_id LIMIT ${options.limit}`
    // HNSW returns at most ef_search rows (default 40), and rows of other accounts or sources are
    // filtered out after the scan: ask for enough, and let pgvector's iterative scan go on until
    // the LIMIT is met (order is restored by the outer ORDER BY).
    const searched =
      options.ids === undefined
        ? transaction(
            sql,
            Effect.andThen(
              sql.unsafe(`SET LOCAL hnsw.ef_search = ${Math.min(1_000, Math.max(100, pool))}`),
              Effect.andThen(sql.unsafe("SET LOCAL hnsw.iterative_scan = relaxed_order"), query)
            )
          )
        : query
    return searched.pipe(Effect.map(toCandidates), Effect.mapError(storeError("vector search failed")))
  }

  /**
   * BM25 over the `english` tsvector of each memory (stemmed, stop words dropped), read from the
   * postings of migration 0007: document frequencies and the average length are the account's
   * (kept by migration 0003's trigger), so a word common in this account counts for little. Any
   * query term may match.
   *
   * Which memories are scored: given `ids`, those. Otherwise the holders of the rarest query
   * terms, taken in order of rarity while their holders add up to at most `candidateBudget`;
   * the other terms still count in those memories' scores (one primary-key probe per candidate
   * and term; given ids, only those probes: reading a common term's postings to find the ids
   * among them cost 65 ms at 10k). Scoring every holder of a term that half the memories hold
   * (a speaker's name, say) cost a third of a second at 10k memories, and such a term barely
   * lifts a memory into the first few dozen on its own. A query whose every term is that common finds no text candidates;
   * the vector search still finds them, and Recall scores them here by id.
   */
  const searchText: MemorySearchShape["searchText"] = (accountId, query, options) => {
    if (options.ids?.length === 0) return Effect.succeed([])
    const inSelection = selected(accountId, "h", options)
    const filtered = !isAnyMemory(options.filter ?? anyMemory) && options.ids === undefined
    const budgeted = sql`SELECT DISTINCT p.umo_id FROM terms t JOIN search_postings p
            ON p.account_id = ${accountId} AND p.lexeme = t.lexeme WHERE t.running <= ${candidateBudget}`
    // A narrow selection is scored whole (each of its memories probed for each term), as the
    // vector search scans it whole; a wide one is read from its rarest terms' postings.
    const holders =
      options.ids !== undefined
        ? sql`SELECT m.umo_id FROM memories m WHERE m.account_id = ${accountId} ${onlyIds("m.umo_id", options)}`
        : filtered
          ? sql`SELECT b.umo_id FROM (${budgeted}) b WHERE (SELECT count(*) FROM narrowed) >= ${exactBelow}
              UNION SELECT n.umo_id FROM narrowed n WHERE (SELECT count(*) FROM narrowed) < ${exactBelow}`
          : budgeted
    return sql<{ umo_id: string; score: number }>`
      WITH ${filtered ? sql`narrowed AS MATERIALIZED (${narrow(accountId, options)}),` : sql``} counted AS MATERIALIZED (
        SELECT q.lexeme, coalesce((SELECT s.documents FROM search_terms s
          WHERE s.account_id = ${accountId} AND s.lexeme = q.lexeme), 0)::float8 AS df
        FROM (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', ${query}))) q
      ), terms AS MATERIALIZED (
        SELECT lexeme, df, sum(df) OVER (ORDER BY df, lexeme) AS running FROM counted
      ), stats AS MATERIALIZED (
        SELECT documents::float8 AS n, greatest(lexemes::float8 / greatest(documents, 1), 1) AS avgdl
        FROM search_totals WHERE account_id = ${accountId}
      ), candidates AS MATERIALIZED (
        SELECT h.umo_id FROM (${holders}) h WHERE true ${inSelection}
      ), matched AS (
        SELECT p.umo_id, p.occurrences::float8 AS tf, p.memory_lexemes::float8 AS dl, t.df
        FROM candidates c CROSS JOIN terms t
        JOIN search_postings p ON p.account_id = ${accountId} AND p.lexeme = t.lexeme AND p.umo_id = c.umo_id
      )
      SELECT matched.umo_id::text AS umo_id,
        sum(ln(1 + (stats.n - matched.df + 0.5) / (matched.df + 0.5)) * tf * ${k1 + 1}
            / (tf + ${k1} * (${1 - b} + ${b} * dl / stats.avgdl))) AS score
      FROM matched, stats
      GROUP BY matched.umo_id ORDER BY score DESC, matched.umo_id LIMIT ${options.limit}`.pipe(
      Effect.map(toCandidates),
      Effect.mapError(storeError("text search failed"))
    )
  }

  const inNeighbour = filterSql(sql, "p")

  /** For each memory, the selected one captured just before and just after it with the same source. */
  const neighbours: MemorySearchShape["neighbours"] = (accountId, umoIds, selection) => {
    if (umoIds.length === 0) return Effect.succeed([])
    const order = (direction: "<" | ">") => sql.literal(direction === "<" ? "DESC" : "ASC")
    const step = (direction: "<" | ">") =>
      sql`(SELECT p.umo_id::text FROM memories p
        WHERE p.account_id = ${accountId} AND coalesce(p.source, '') = coalesce(m.source, '')
          AND (p.content_time, p.umo_id) ${sql.literal(direction)} (m.content_time, m.umo_id)
          AND ${inNeighbour.selected(selection)}
        ORDER BY p.content_time ${order(direction)}, p.umo_id ${order(direction)} LIMIT 1)`
    return sql<{ umo_id: string; previous: string | null; next: string | null }>`
      SELECT m.umo_id::text AS umo_id, ${step("<")} AS previous, ${step(">")} AS next
      FROM memories m WHERE m.account_id = ${accountId} AND ${sql.in("m.umo_id", umoIds)}`.pipe(
      Effect.map((rows): ReadonlyArray<Neighbours> => rows),
      Effect.mapError(storeError("could not read neighbouring memories"))
    )
  }

  const rankingFacts: MemorySearchShape["rankingFacts"] = (accountId, umoIds) =>
    umoIds.length === 0
      ? Effect.succeed([])
      : sql<{
          umo_id: string
          timestamp: string
          entities: string
          superseded_by: string | null
          facts: string
        }>`
          SELECT m.umo_id::text AS umo_id, ${sql.literal(isoUtc("m.content_time"))} AS timestamp,
            m.entities::text AS entities, m.superseded_by::text AS superseded_by,
            (SELECT coalesce(jsonb_agg(jsonb_build_object('slot', f.slot, 'value', f.value, 'mode', f.mode)), '[]')::text
              FROM memory_facts f WHERE f.account_id = ${accountId} AND f.umo_id = m.umo_id) AS facts
          FROM memories m WHERE m.account_id = ${accountId} AND ${sql.in("m.umo_id", umoIds)}`.pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              ...r,
              entities: JSON.parse(r.entities),
              facts: JSON.parse(r.facts)
            }))
          ),
          Effect.mapError(storeError("could not read memories"))
        )

  // Every call reads the database itself: nothing to bring up to date.
  const recalled: MemorySearchShape["recalled"] = (accountId, umoIds) =>
    umoIds.length === 0
      ? Effect.succeed([])
      : sql<RecalledRow>`SELECT ${recalledColumns(sql)} FROM memories
          WHERE account_id = ${accountId} AND ${sql.in("umo_id", umoIds)}`.pipe(
          Effect.map((rows) => rows.map(toRecalled)),
          Effect.mapError(storeError("could not read memories"))
        )

  const vectors: MemorySearchShape["vectors"] = (accountId, umoIds) =>
    umoIds.length === 0
      ? Effect.succeed(new Map())
      : sql<{ umo_id: string; embedding: string }>`
          SELECT umo_id::text AS umo_id, embedding::text AS embedding FROM memory_chunks
          WHERE account_id = ${accountId} AND chunk_index = 0 AND ${sql.in("umo_id", umoIds)}`.pipe(
          Effect.map(
            (rows) => new Map(rows.map((r) => [r.umo_id, JSON.parse(r.embedding) as ReadonlyArray<number>]))
          ),
          Effect.mapError(storeError("could not read memories' vectors"))
        )

  return makeMemorySearch({
    sync: () => Effect.succeed("database"),
    follow: () => Effect.void,
    searchVector,
    searchText,
    neighbours,
    rankingFacts,
    recalled,
    vectors
  })
}

/** The MemorySearch port on an Effect SqlClient, with the vector graph of the embedder the store is pinned to. */
export const layer = Layer.effect(
  MemorySearch,
  Effect.gen(function* () {
    const pinned = yield* pinEmbedder((yield* Embedder).model)
    yield* keepVectorGraph(pinned.dimensions, true)
    return makeSearch(yield* readClient)
  })
)
