import { type ErasureReceipt, type LedgerShape, StoreError } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import { transaction } from "./SqlFailure.js"
import { lockChainHead } from "./SqlLedger.js"

/**
 * Deletes every memory of the account that `where` admits (over the `memories` row, unaliased),
 * superseded ones included, in one transaction with the account's chain head locked: a deletion
 * entry each in the chain, and one receipt signing the list of ids, their count and the last
 * deletion entry — whose hash, through `prev_hash`, covers every entry before it.
 */
export const eraseMatching = (
  sql: SqlClient.SqlClient,
  ledger: LedgerShape,
  accountId: string,
  where: Statement.Fragment,
  /** Why, when the erasure is not a caller's (`expired`: the sweeper's); signed with the rest. */
  reason?: "expired",
  /** The ids the caller named, every one to be erased: one missing erases none (`UnknownMemory`). */
  named?: ReadonlyArray<string>
) =>
  transaction(
    sql,
    Effect.gen(function* () {
      yield* lockChainHead(sql, accountId)
      const rows = yield* sql<{
        umo_id: string
        content_hash: string
        semantic_hash: string
        record_hash: string
      }>`
        DELETE FROM memories WHERE account_id = ${accountId} AND ${where}
        RETURNING umo_id::text AS umo_id, content_hash, semantic_hash, record_hash`
      if (named !== undefined) {
        const erased = new Set(rows.map((r) => r.umo_id))
        const missing = named.find((id) => !erased.has(id))
        // Failing here rolls the whole transaction back: nothing of the batch is erased.
        if (missing !== undefined)
          return yield* new StoreError({
            reason: "UnknownMemory",
            umo_id: missing,
            detail: `no memory with id ${missing}`
          })
      }
      if (rows.length === 0)
        return { forgotten: 0, umo_ids: [], deleted_at: null, receipt: "" } satisfies ErasureReceipt
      const deleted = [...rows].sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))
      const entries = yield* ledger.appendMany(
        accountId,
        deleted.map((row) => ({ kind: "delete" as const, ...row }))
      )
      const first = entries[0]!
      const last = entries.at(-1)!
      const umo_ids = deleted.map((row) => row.umo_id)
      const receipt = yield* ledger.signReceipt({
        type: "umo-erasure-receipt",
        count: umo_ids.length,
        umo_ids,
        deleted_at: last.recorded_at,
        first_seq: first.seq,
        entry: last,
        ...(reason === undefined ? {} : { reason })
      })
      yield* sql`INSERT INTO erasure_receipts ${sql.insert({
        account_id: accountId,
        first_seq: first.seq,
        last_seq: last.seq,
        deleted_at: last.recorded_at,
        receipt
      })}`
      return {
        forgotten: umo_ids.length,
        umo_ids,
        deleted_at: last.recorded_at,
        receipt
      } satisfies ErasureReceipt
    })
  )
