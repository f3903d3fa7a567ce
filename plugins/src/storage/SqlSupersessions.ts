import {
  type CaptureWrite,
  decideUpdates,
  type FactHolder,
  type FactMode,
  isNewer,
  type LedgerEntry,
  type LedgerEvent,
  StoreError,
  slotsToMatch
} from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isoUtc } from "./SqlFailure.js"

/** What one capture superseded, and what superseded it at once. */
export interface Updated {
  readonly supersedes: Array<string>
  superseded_by: string | null
}

/**
 * Supersessions inside a capture's transaction, after its memories are stored and while the
 * account's chain head is locked (so the captures of one account decide in turn): first the
 * memories the caller named, then the successors already there of memories that come in
 * superseded (`supersededBy`), then those the writes' facts outdate (`decideUpdates`), then those
 * the update judge decided (`judged`; a memory no longer current is left as it is). Each marks
 * the older memory and gives a `supersede` event for the chain.
 */
export const applySupersessions = (
  sql: SqlClient.SqlClient,
  accountId: string,
  writes: ReadonlyArray<CaptureWrite>
) =>
  Effect.gen(function* () {
    const updated = new Map<string, Updated>(
      writes.map((w) => [w.umo.umo_id, { supersedes: [], superseded_by: null }])
    )
    const events: Array<LedgerEvent> = []

    /**
     * Marks `older` superseded by `newer`, if it is still current and not immutable; its event when it was. (Its
     * `superseded_at` is the time its chain entry records: `recordSupersessionTimes`, after the append.)
     */
    const supersede = (older: string, newer: string) =>
      Effect.map(
        sql<{ content_hash: string; semantic_hash: string; record_hash: string }>`
          UPDATE memories SET superseded_by = ${newer}
          WHERE account_id = ${accountId} AND umo_id = ${older} AND superseded_by IS NULL AND NOT immutable
          RETURNING content_hash, semantic_hash, record_hash`,
        ([row]) => {
          if (row === undefined) return false
          events.push({ kind: "supersede", umo_id: older, superseded_by: newer, ...row })
          updated.get(newer)?.supersedes.push(older)
          const self = updated.get(older)
          if (self !== undefined) self.superseded_by = newer
          return true
        }
      )

    // Named by the caller: each must be the account's, unexpired, current and not immutable.
    const named = [...new Set(writes.flatMap((w) => w.supersedes))]
    if (named.length > 0) {
      const rows = yield* sql<{ umo_id: string; superseded_by: string | null; immutable: boolean }>`
        SELECT umo_id::text AS umo_id, superseded_by::text AS superseded_by, immutable FROM memories
        WHERE account_id = ${accountId} AND ${sql.in("umo_id", named)}
          AND (expires_at IS NULL OR expires_at > now()) FOR UPDATE`
      const found = new Map(rows.map((r) => [r.umo_id, r.superseded_by]))
      const immutable = new Set(rows.filter((r) => r.immutable).map((r) => r.umo_id))
      for (const write of writes) {
        for (const older of write.supersedes) {
          if (!found.has(older) || older === write.umo.umo_id)
            return yield* new StoreError({
              reason: "UnknownMemory",
              umo_id: older,
              detail: `no memory with id ${older} to supersede`
            })
          if (immutable.has(older))
            return yield* new StoreError({
              reason: "Immutable",
              umo_id: older,
              detail: `memory ${older} is immutable: nothing may supersede it`
            })
          const marked = yield* supersede(older, write.umo.umo_id)
          if (!marked)
            return yield* new StoreError({
              reason: "AlreadySuperseded",
              umo_id: older,
              detail: `memory ${older} is already superseded by ${found.get(older) ?? "another capture"}; supersede that one instead`
            })
        }
      }
    }

    // Superseded from the start by a memory already there (an import's copy of a successor).
    for (const write of writes) {
      const successor = write.supersededBy
      if (successor === undefined) continue
      const [exists] =
        yield* sql`SELECT 1 AS one FROM memories WHERE account_id = ${accountId} AND umo_id = ${successor}`
      if (exists === undefined || successor === write.umo.umo_id)
        return yield* new StoreError({
          reason: "UnknownMemory",
          umo_id: successor,
          detail: `no memory with id ${successor} to be superseded by`
        })
      yield* supersede(write.umo.umo_id, successor)
    }

    // Found by facts, oldest content first, so each decides against what the earlier ones left current.
    const inferring = writes
      .filter((w) => w.inferUpdates && slotsToMatch(w.facts).length > 0)
      .map((w) => ({ umo_id: w.umo.umo_id, timestamp: w.umo.timestamp, facts: w.facts }))
      .sort((a, b) => (isNewer(a, b) ? 1 : -1))
    for (const incoming of inferring) {
      if (updated.get(incoming.umo_id)?.superseded_by != null) continue
      const holders = yield* currentHolders(sql, accountId, slotsToMatch(incoming.facts))
      const decision = decideUpdates(incoming, holders)
      for (const older of decision.supersedes) yield* supersede(older, incoming.umo_id)
      if (decision.supersededBy !== null) yield* supersede(incoming.umo_id, decision.supersededBy)
    }
    // Decided by the update judge before the write, oldest content first.
    const judged = writes
      .filter((w) => w.judged !== undefined)
      .sort((a, b) => (isNewer(a.umo, b.umo) ? 1 : -1))
    for (const write of judged) {
      const { outdates, outdatedBy } = write.judged!
      if (outdatedBy !== null && updated.get(write.umo.umo_id)?.superseded_by == null)
        yield* supersede(write.umo.umo_id, outdatedBy)
      for (const older of outdates) yield* supersede(older, write.umo.umo_id)
    }
    return { updated, events }
  })

/**
 * Sets `superseded_at` of the memories the appended supersession entries name to the time those
 * entries record, so the proof can hold the two to each other.
 */
export const recordSupersessionTimes = (
  sql: SqlClient.SqlClient,
  accountId: string,
  entries: ReadonlyArray<LedgerEntry>
) => {
  const superseded = entries.filter((e) => e.kind === "supersede")
  const [first] = superseded
  return first === undefined
    ? Effect.void
    : Effect.asVoid(sql`UPDATE memories SET superseded_at = ${first.recorded_at}::timestamptz
        WHERE account_id = ${accountId} AND ${sql.in(
          "umo_id",
          superseded.map((e) => e.umo_id)
        )}`)
}

/** The current memories stating any of `slots`, each with every fact it states. */
const currentHolders = (sql: SqlClient.SqlClient, accountId: string, slots: ReadonlyArray<string>) =>
  Effect.map(
    sql<{ umo_id: string; timestamp: string; slot: string; value: string; mode: FactMode }>`
      SELECT f.umo_id::text AS umo_id, ${sql.literal(isoUtc("m.content_time"))} AS timestamp, f.slot, f.value, f.mode
      FROM memories m JOIN memory_facts f ON f.account_id = m.account_id AND f.umo_id = m.umo_id
      WHERE m.account_id = ${accountId} AND m.superseded_by IS NULL AND m.umo_id IN (
        SELECT s.umo_id FROM memory_facts s WHERE s.account_id = ${accountId} AND ${sql.in("s.slot", slots)})`,
    (rows): ReadonlyArray<FactHolder> => {
      const holders = new Map<
        string,
        { umo_id: string; timestamp: string; facts: Array<FactHolder["facts"][number]> }
      >()
      for (const row of rows) {
        const holder = holders.get(row.umo_id) ?? { umo_id: row.umo_id, timestamp: row.timestamp, facts: [] }
        holder.facts.push({ slot: row.slot, value: row.value, mode: row.mode })
        holders.set(row.umo_id, holder)
      }
      return [...holders.values()]
    }
  )

/** The rows of `memory_facts` for the writes: each fact once. */
export const factRows = (accountId: string, writes: ReadonlyArray<CaptureWrite>) =>
  writes.flatMap((w) => {
    const seen = new Set<string>()
    return w.facts.flatMap((f) => {
      const key = JSON.stringify([f.slot, f.value, f.mode])
      if (seen.has(key)) return []
      seen.add(key)
      return [{ account_id: accountId, umo_id: w.umo.umo_id, slot: f.slot, value: f.value, mode: f.mode }]
    })
  })
