import type { ExportedMemory, LedgerEntry, MemoryStoreShape } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { storeError } from "./SqlFailure.js"
import type { filterSql } from "./SqlFilter.js"
import { entryColumns, toEntry } from "./SqlLedger.js"
import { type MemoryRow, memoryColumns, toStored } from "./SqlMemoryRows.js"

/**
 * What an export and an import read of the store: the selected memories in capture order a page
 * at a time, each with its chain entries (and vectors), and the memories an import already brought
 * in from its originals.
 */
export const makeExports = (
  sql: SqlClient.SqlClient,
  filters: ReturnType<typeof filterSql>
): Pick<MemoryStoreShape, "exportPage" | "originsOf"> => {
  const exportPage: MemoryStoreShape["exportPage"] = (accountId, options) =>
    Effect.gen(function* () {
      // Keyset paging on the primary key: a page costs the same at the first memory and the 100,000th.
      const rows = yield* sql<MemoryRow>`
        SELECT ${memoryColumns(sql, accountId)} FROM memories
        WHERE account_id = ${accountId} AND ${filters.selected(options)}
          ${options.afterId === null ? sql`` : sql`AND umo_id > ${options.afterId}`}
        ORDER BY umo_id LIMIT ${options.limit}`
      if (rows.length === 0) return []
      const memories = rows.map(toStored)
      const ids = memories.map((m) => m.umo_id)
      const entries = (yield* sql<LedgerEntry>`
        SELECT ${entryColumns(sql)} FROM ledger_entries
        WHERE account_id = ${accountId} AND kind IN ('capture', 'supersede') AND ${sql.in("umo_id", ids)}
        ORDER BY seq`).map(toEntry)
      const captures = new Map(entries.filter((e) => e.kind === "capture").map((e) => [e.umo_id, e]))
      // The entry that names a memory's successor: the latest, should there be more than one.
      const supersessions = new Map(entries.filter((e) => e.kind === "supersede").map((e) => [e.umo_id, e]))
      const chunks = options.vectors
        ? yield* sql<{ umo_id: string; start_offset: number; end_offset: number; embedding: string }>`
            SELECT umo_id::text AS umo_id, start_offset, end_offset, embedding::text AS embedding
            FROM memory_chunks WHERE account_id = ${accountId} AND ${sql.in("umo_id", ids)}
            ORDER BY umo_id, chunk_index`
        : []
      return memories.map((memory): ExportedMemory => {
        const supersession = supersessions.get(memory.umo_id)
        return {
          memory,
          entry: captures.get(memory.umo_id) ?? null,
          supersession:
            memory.superseded_by !== null && supersession?.superseded_by === memory.superseded_by
              ? supersession
              : null,
          ...(options.vectors
            ? {
                chunks: chunks
                  .filter((c) => c.umo_id === memory.umo_id)
                  .map((c) => ({
                    start: c.start_offset,
                    end: c.end_offset,
                    vector: JSON.parse(c.embedding) as Array<number>
                  }))
              }
            : {})
        }
      })
    }).pipe(Effect.mapError(storeError("could not read memories to export")))

  const originsOf: MemoryStoreShape["originsOf"] = (accountId, keys) =>
    keys.length === 0
      ? Effect.succeed(new Map())
      : sql<{ origin: string; umo_id: string }>`
          SELECT origin, umo_id::text AS umo_id FROM memory_origins
          WHERE account_id = ${accountId} AND ${sql.in("origin", keys)}`.pipe(
          Effect.map((rows) => new Map(rows.map((r) => [r.origin, r.umo_id]))),
          Effect.mapError(storeError("could not read the memories' origins"))
        )

  return { exportPage, originsOf }
}
