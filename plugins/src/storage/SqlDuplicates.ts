/**
 * Captures that repeat a current memory: the same text, source, scope and metadata, at the same time or
 * with none given. Found under the account's chain lock, so two identical captures racing store
 * one memory: the second finds the first.
 * @module
 */
import { type CaptureWrite, canonicalJson, type LedgerEntry } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { isoUtc } from "./SqlFailure.js"
import { entryColumns, toEntry } from "./SqlLedger.js"

/** The memory a write repeats, with what its answer and its `repeat` chain entry need of it. */
export interface Original {
  readonly umo_id: string
  readonly created_at: string
  readonly quality_score: number
  readonly content_hash: string
  readonly semantic_hash: string
  readonly record_hash: string
  /**
   * Its capture entry, when it was stored before this call; null when it is an earlier write of
   * the same call, whose entry the call appends.
   */
  readonly entry: LedgerEntry | null
}

interface Candidate extends Original {
  readonly timestamp: string
  readonly key: string
}

/**
 * What must be equal for two memories to be one said twice: the text, the scope, the metadata, and
 * the source (the same words from another source are another record of them, and its label would
 * be lost).
 */
const keyOf = (m: {
  readonly content_hash: string
  readonly source: string | null
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: unknown
}) => canonicalJson([m.content_hash, m.source, m.user_id, m.agent_id, m.session_id, m.metadata])

const sameTime = (a: string, b: string) => Date.parse(a) === Date.parse(b)

/**
 * For each write that asks (`dedupe`), the memory it repeats: a current one of the account, or an
 * earlier write of the same call that is stored. With a time given, only a memory of that time is
 * the same saying; with none, any time is.
 */
export const findOriginals = (
  sql: SqlClient.SqlClient,
  accountId: string,
  writes: ReadonlyArray<CaptureWrite>,
  recordHashes: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<number, Original>, SqlError> =>
  Effect.gen(function* () {
    const asking = writes.flatMap((w) => (w.dedupe === undefined ? [] : [w.umo.content_hash]))
    if (asking.length === 0) return new Map()
    const rows = yield* sql<{
      umo_id: string
      created_at: string
      timestamp: string
      quality_score: number
      content_hash: string
      semantic_hash: string
      record_hash: string
      source: string | null
      user_id: string | null
      agent_id: string | null
      session_id: string | null
      metadata: string
    }>`SELECT umo_id::text AS umo_id, ${sql.unsafe(isoUtc("created_at"))} AS created_at,
         ${sql.unsafe(isoUtc("content_time"))} AS timestamp, quality_score, content_hash, semantic_hash,
         record_hash, source, user_id, agent_id, session_id, metadata::text AS metadata
       FROM memories
       WHERE account_id = ${accountId} AND superseded_by IS NULL AND content_hash IN ${sql.in([...new Set(asking)])}
       ORDER BY created_at, umo_id`
    // A memory whose capture entry the chain lost is not one to answer with: its receipt is that entry.
    const entries = yield* captureEntries(
      sql,
      accountId,
      rows.map((row) => row.umo_id)
    )
    const known: Array<Candidate> = rows.flatMap((row) => {
      const entry = entries.get(row.umo_id)
      return entry === undefined
        ? []
        : [
            {
              ...row,
              quality_score: Number(row.quality_score),
              key: keyOf({ ...row, metadata: JSON.parse(row.metadata) }),
              entry
            }
          ]
    })
    const originals = new Map<number, Original>()
    writes.forEach((write, index) => {
      const { umo } = write
      const key = keyOf(umo)
      const original =
        write.dedupe === undefined
          ? undefined
          : known.find(
              (c) => c.key === key && (!write.dedupe!.timeGiven || sameTime(c.timestamp, umo.timestamp))
            )
      if (original !== undefined) {
        const { key: _key, timestamp: _timestamp, ...kept } = original
        originals.set(index, kept)
        return
      }
      // Stored: a later write of the call may repeat it.
      known.push({
        umo_id: umo.umo_id,
        created_at: umo.created_at,
        timestamp: umo.timestamp,
        quality_score: umo.quality_score,
        content_hash: umo.content_hash,
        semantic_hash: umo.semantic_hash,
        record_hash: recordHashes[index]!,
        key,
        entry: null
      })
    })
    return originals
  })

/** The capture entries of memories stored before, by id: a repeat's receipt is its original's. */
const captureEntries = (
  sql: SqlClient.SqlClient,
  accountId: string,
  ids: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, LedgerEntry>, SqlError> =>
  ids.length === 0
    ? Effect.succeed(new Map())
    : Effect.map(
        sql<LedgerEntry>`SELECT ${entryColumns(sql)} FROM ledger_entries
          WHERE account_id = ${accountId} AND kind = 'capture' AND umo_id IN ${sql.in(ids)}`,
        (rows) => new Map(rows.map((row) => [row.umo_id, toEntry(row)]))
      )
