import {
  type ChainCheck,
  checkpointMessage,
  entryHash,
  genesisHash,
  Ledger,
  type LedgerEntry,
  LedgerError,
  type LedgerEvent,
  type LedgerEventKind,
  type StoreError,
  verifyEntry,
  verifySignature
} from "@umo/core"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { JWK } from "jose"
import { readClient } from "./ReadReplicas.js"
import { SigningKey } from "./SigningKey.js"
import { isUnavailable, readSnapshot } from "./SqlFailure.js"
import { insertRows } from "./SqlInsertRows.js"
import * as SqlKeyRing from "./SqlKeyRing.js"
import { withStartupLock } from "./StartupLock.js"

/** A signed checkpoint every this many entries bounds the work of checking any one entry. */
export const defaultCheckpointInterval = 64

export interface SqlLedgerOptions {
  /** Entries between signed checkpoints (default 64); a proof reads at most twice this many. */
  readonly checkpointInterval?: number
}

interface Checkpoint {
  readonly account_id: string
  readonly seq: number
  readonly entry_hash: string
  readonly signature: string
  readonly key_id: string
}

const ledgerError = (detail: string) => (cause: SqlError.SqlError | LedgerError | StoreError) =>
  cause instanceof LedgerError
    ? cause
    : new LedgerError({
        reason: isUnavailable(cause) ? "Unavailable" : "Failed",
        detail: `${detail}: ${cause.message}`,
        cause
      })

/**
 * Locks an account's chain head (creating it for a new account) for the rest of the caller's
 * transaction. Every write of an account takes it before anything else, so writers of one account
 * take turns and their other row locks (search statistics, kept by a trigger) cannot deadlock.
 */
export const lockChainHead = (sql: SqlClient.SqlClient, accountId: string) =>
  Effect.andThen(
    sql`INSERT INTO ledger_heads (account_id, seq, entry_hash)
        VALUES (${accountId}, 0, ${genesisHash}) ON CONFLICT (account_id) DO NOTHING`,
    sql`SELECT 1 FROM ledger_heads WHERE account_id = ${accountId} FOR UPDATE`
  )

export const entryColumns = (sql: SqlClient.SqlClient) =>
  sql`account_id::text AS account_id, seq, kind, umo_id::text AS umo_id, content_hash, semantic_hash, record_hash,
      superseded_by::text AS superseded_by, recorded_at, prev_hash, entry_hash, signature, key_id`

/** A row as an entry: `superseded_by` only on the supersession entries that have one. */
export const toEntry = ({
  superseded_by,
  ...row
}: Omit<LedgerEntry, "superseded_by"> & {
  readonly superseded_by?: string | null | undefined
}): LedgerEntry => ({
  ...row,
  seq: Number(row.seq),
  ...(typeof superseded_by === "string" ? { superseded_by } : {})
})

export const make = (options: SqlLedgerOptions = {}) =>
  Effect.gen(function* () {
    const checkpointInterval = options.checkpointInterval ?? defaultCheckpointInterval
    const sql = yield* SqlClient.SqlClient
    const key = yield* SigningKey
    const keyRing = SqlKeyRing.make(sql, key)
    // Before anything is signed: this key must be the one the database's chains are signed with.
    yield* withStartupLock(keyRing.register)
    // Checks, pages and audits only read: from a replica that has caught up, when there are some,
    // each in one snapshot of that database (the ring it trusts included).
    const reads = yield* readClient
    const readRing = SqlKeyRing.make(reads, key)

    // Every entry and checkpoint names the key that signed it, which must be a trusted one.
    const checkpointValid = (
      cp: Checkpoint,
      entry: LedgerEntry | undefined,
      trusted: ReadonlyMap<string, JWK>
    ) => {
      const jwk = trusted.get(cp.key_id)
      return (
        entry !== undefined &&
        jwk !== undefined &&
        cp.entry_hash === entry.entry_hash &&
        verifySignature(checkpointMessage(cp), cp.signature, jwk)
      )
    }

    /** Appends events in order, one locked read of the head and one write each of entries and head. */
    const appendMany = (accountId: string, events: ReadonlyArray<LedgerEvent>) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* lockChainHead(sql, accountId)
            // The shared rotation lock: a rotation waits for this append, or this append for it.
            yield* SqlKeyRing.holdSharedRotationLock(sql)
            // The head's lock serializes appends per account, across connections and processes; this
            // statement starts after the rotation lock is held, so it sees any rotation committed.
            const [head] = yield* sql<{ seq: number; entry_hash: string; signing_key: string | null }>`
            SELECT seq, entry_hash, (SELECT key_id FROM signing_keys ORDER BY seq DESC LIMIT 1) AS signing_key
            FROM ledger_heads WHERE account_id = ${accountId} FOR UPDATE`
            yield* keyRing.assertCurrent(head!.signing_key)
            const recorded_at = new Date(yield* Clock.currentTimeMillis).toISOString()
            const entries: Array<LedgerEntry> = []
            let previous = { seq: Number(head!.seq), entry_hash: head!.entry_hash }
            for (const event of events) {
              const unsigned = {
                account_id: accountId,
                seq: previous.seq + 1,
                kind: event.kind,
                umo_id: event.umo_id,
                content_hash: event.content_hash,
                semantic_hash: event.semantic_hash,
                record_hash: event.record_hash,
                ...(event.superseded_by === undefined ? {} : { superseded_by: event.superseded_by }),
                recorded_at,
                prev_hash: previous.entry_hash
              }
              const hash = entryHash(unsigned)
              entries.push({ ...unsigned, entry_hash: hash, signature: key.sign(hash), key_id: key.keyId })
              previous = { seq: unsigned.seq, entry_hash: hash }
            }
            const [first, ...rest] = entries
            if (first === undefined) return entries
            // Every row names every column (sql.insert takes the first row's): null where an entry has no successor.
            const row = (entry: LedgerEntry) => ({ ...entry, superseded_by: entry.superseded_by ?? null })
            yield* insertRows(sql, "ledger_entries", [row(first), ...rest.map(row)])
            yield* sql`UPDATE ledger_heads SET seq = ${previous.seq}, entry_hash = ${previous.entry_hash}
                       WHERE account_id = ${accountId}`
            const checkpoints = entries
              .filter((entry) => entry.seq % checkpointInterval === 0)
              .map((entry) => {
                const cp = { account_id: accountId, seq: entry.seq, entry_hash: entry.entry_hash }
                return { ...cp, signature: key.sign(checkpointMessage(cp)), key_id: key.keyId }
              })
            yield* insertRows(sql, "ledger_checkpoints", checkpoints)
            return entries
          })
        )
        .pipe(
          Effect.mapError(ledgerError("could not append to the ledger")),
          Effect.withSpan("Ledger.appendMany")
        )

    const append = (accountId: string, event: LedgerEvent) =>
      Effect.map(appendMany(accountId, [event]), (entries) => entries[0]!)

    /**
     * Checks the links from the checkpoint at or before `seq - 1` to the checkpoint at or after
     * `seq` (or to the head, whose own signature anchors the tail). At most two intervals of entries
     * are read, however long the chain; a gap longer than that means a checkpoint went missing.
     */
    const segmentValid = (accountId: string, seq: number, trusted: ReadonlyMap<string, JWK>) =>
      Effect.gen(function* () {
        const [lower] = yield* reads<Checkpoint>`
        SELECT account_id::text AS account_id, seq, entry_hash, signature, key_id FROM ledger_checkpoints
        WHERE account_id = ${accountId} AND seq < ${seq} ORDER BY seq DESC LIMIT 1`
        const [upper] = yield* reads<Checkpoint>`
        SELECT account_id::text AS account_id, seq, entry_hash, signature, key_id FROM ledger_checkpoints
        WHERE account_id = ${accountId} AND seq >= ${seq} ORDER BY seq ASC LIMIT 1`
        const from = lower ? Number(lower.seq) : 1
        const limit = 2 * checkpointInterval + 1
        const rows = (yield* reads<LedgerEntry>`
        SELECT ${entryColumns(reads)} FROM ledger_entries
        WHERE account_id = ${accountId} AND seq >= ${from} ${upper ? reads`AND seq <= ${upper.seq}` : reads``}
        ORDER BY seq LIMIT ${limit + 1}`).map(toEntry)
        if (rows.length === 0 || rows.length > limit) return false
        const linked = rows.every(
          (row, i) =>
            row.seq === from + i &&
            row.entry_hash === entryHash(row) &&
            // The first row is either the genesis entry or the lower checkpoint's, checked below.
            (i === 0 ? from > 1 || row.prev_hash === genesisHash : row.prev_hash === rows[i - 1]!.entry_hash)
        )
        if (!linked || !rows.some((row) => row.seq === seq)) return false
        if (lower && !checkpointValid({ ...lower, seq: Number(lower.seq) }, rows[0], trusted)) return false
        const last = rows.at(-1)!
        if (upper)
          return (
            Number(upper.seq) === last.seq &&
            checkpointValid({ ...upper, seq: Number(upper.seq) }, last, trusted)
          )
        const [head] = yield* reads<{
          seq: number
        }>`SELECT max(seq) AS seq FROM ledger_entries WHERE account_id = ${accountId}`
        return Number(head?.seq) === last.seq && verifyEntry(last, trusted)
      })

    const check = (accountId: string, umoId: string, kind: LedgerEventKind) =>
      readSnapshot(
        reads,
        Effect.gen(function* () {
          const [row] = yield* reads<LedgerEntry>`
        SELECT ${entryColumns(reads)} FROM ledger_entries
        WHERE account_id = ${accountId} AND umo_id = ${umoId} AND kind = ${kind}
        ORDER BY seq DESC LIMIT 1`
          if (!row) return Option.none<ChainCheck>()
          const entry = toEntry(row)
          const ring = yield* readRing.read
          const entry_valid = verifyEntry(entry, ring.trusted)
          // A key ring changed outside UMO puts every chain in doubt, whatever the entries say.
          const chain_valid = ring.intact && (yield* segmentValid(accountId, entry.seq, ring.trusted))
          return Option.some({
            entry,
            entry_valid,
            chain_valid,
            signing_key: ring.trusted.get(entry.key_id) ?? null,
            rotations: ring.keySet.rotations ?? []
          })
        })
      ).pipe(Effect.mapError(ledgerError("could not read the ledger")), Effect.withSpan("Ledger.check"))

    /** One read of `limit + 1` rows: the extra one, never returned, says whether older entries remain. */
    const entries = (
      accountId: string,
      page: { readonly before?: number | undefined; readonly limit: number }
    ) =>
      readSnapshot(
        reads,
        Effect.map(
          // `::bigint`: a `before` past the integer column's range is a bound, not an error.
          reads<LedgerEntry>`
        SELECT ${entryColumns(reads)} FROM ledger_entries
        WHERE account_id = ${accountId} ${page.before === undefined ? reads`` : reads`AND seq < ${page.before}::bigint`}
        ORDER BY seq DESC LIMIT ${page.limit + 1}`,
          (rows) => ({
            entries: rows.slice(0, page.limit).map(toEntry),
            has_more: rows.length > page.limit
          })
        )
      ).pipe(Effect.mapError(ledgerError("could not read the ledger")), Effect.withSpan("Ledger.entries"))

    const audit = (accountId: string) =>
      readSnapshot(
        reads,
        Effect.gen(function* () {
          const ring = yield* readRing.read
          const rows = (yield* reads<LedgerEntry>`
        SELECT ${entryColumns(reads)} FROM ledger_entries WHERE account_id = ${accountId} ORDER BY seq`).map(
            toEntry
          )
          const checkpoints = yield* reads<Checkpoint>`
        SELECT account_id::text AS account_id, seq, entry_hash, signature, key_id FROM ledger_checkpoints
        WHERE account_id = ${accountId} ORDER BY seq`
          const entriesValid = rows.every(
            (row, i) =>
              row.seq === i + 1 &&
              verifyEntry(row, ring.trusted) &&
              row.prev_hash === (i === 0 ? genesisHash : rows[i - 1]!.entry_hash)
          )
          const expected = Math.floor(rows.length / checkpointInterval)
          const checkpointsValid =
            checkpoints.length === expected &&
            checkpoints.every((cp) =>
              checkpointValid({ ...cp, seq: Number(cp.seq) }, rows[Number(cp.seq) - 1], ring.trusted)
            )
          // The head row records where the chain ended: entries cut off the end show up here.
          const [head] = yield* reads<{ seq: number; entry_hash: string }>`
          SELECT seq, entry_hash FROM ledger_heads WHERE account_id = ${accountId}`
          const headValid =
            (head === undefined && rows.length === 0) ||
            (head !== undefined &&
              Number(head.seq) === rows.length &&
              head.entry_hash === (rows.at(-1)?.entry_hash ?? genesisHash))
          return {
            entries: rows.length,
            valid: ring.intact && entriesValid && checkpointsValid && headValid
          }
        })
      ).pipe(Effect.mapError(ledgerError("could not audit the ledger")))

    const signingKeys = readSnapshot(
      reads,
      Effect.map(readRing.read, (ring) => ring.keySet)
    ).pipe(Effect.mapError(ledgerError("could not read the signing keys")))

    return Ledger.of({
      append,
      appendMany,
      check,
      entries,
      audit,
      signReceipt: key.signJws,
      publicKeyJwk: key.publicJwk,
      signingKeys
    })
  })

/** The Ledger port on an Effect SqlClient (PGlite or PostgreSQL), signing with `SigningKey`. */
export const layer = (options: SqlLedgerOptions = {}) => Layer.effect(Ledger, make(options))
