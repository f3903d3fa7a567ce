import {
  type KeyRotation,
  keyThumbprint,
  LedgerError,
  openKeyRecord,
  publicSigningJwk,
  type SigningKeyRecord,
  type SigningKeySet,
  signKeyRecord,
  trustedKeys
} from "@umo/core"
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { JWK } from "jose"
import { SigningKeyError, type SigningKeyShape } from "./SigningKey.js"

/**
 * An arbitrary constant naming the rotation lock among PostgreSQL advisory locks: appends hold it
 * shared, a rotation exclusively, so no entry is signed with a key after its rotation commits.
 */
const rotationLockKey = 7_414_209_119

/** Takes the rotation lock in shared mode for the rest of the caller's transaction. */
export const holdSharedRotationLock = (sql: SqlClient.SqlClient) =>
  sql`SELECT pg_advisory_xact_lock_shared(${rotationLockKey})`

interface KeyRow {
  readonly seq: number
  readonly key_id: string
  readonly record: string
}

/** The key ring as one snapshot of `signing_keys` shows it, seen from this process's key. */
export interface KeyRingState {
  /** Keys this process trusts, by thumbprint: its own and every key a verified record links to it. */
  readonly trusted: ReadonlyMap<string, JWK>
  /** Every row checks out: signed, numbered from 1, each naming the key before it. */
  readonly intact: boolean
  /** The trusted keys, newest first, and their records: what `/.well-known/jwks.json` serves. */
  readonly keySet: SigningKeySet
}

const signerOf = (key: SigningKeyShape) => ({ kid: key.keyId, sign: key.sign })

const shortKey = (kid: string) => kid.slice(0, 12)

/**
 * The service's signing keys in the database (`signing_keys`, migration 0004). The first process
 * on a database registers its key; a process with another key refuses to start rather than sign
 * chains nobody can follow; a rotation hands over to a new key with a record both keys sign.
 */
export const make = (sql: SqlClient.SqlClient, key: SigningKeyShape) => {
  // Verifying a record costs two Ed25519 checks; a proof reads the ring each time, so records
  // already opened are remembered by their exact text (a changed row is opened afresh).
  const opened = new Map<string, { rotation?: KeyRotation; record?: SigningKeyRecord }>()
  const open = (text: string) => {
    let known = opened.get(text)
    if (known === undefined) {
      if (opened.size > 1_000) opened.clear()
      try {
        const rotation = JSON.parse(text) as KeyRotation
        const record = Array.isArray(rotation?.signatures) ? openKeyRecord(rotation) : undefined
        known = record ? { rotation, record } : {}
      } catch {
        known = {}
      }
      opened.set(text, known)
    }
    return known
  }

  const rows = sql<KeyRow>`SELECT seq, key_id, record FROM signing_keys ORDER BY seq`

  /** The ring at the caller's snapshot (run it inside `readSnapshot` with the reads it vouches for). */
  const read = Effect.map(rows, (rows): KeyRingState => {
    const records = rows.map((row) => open(row.record).record)
    const intact =
      rows.length > 0 &&
      rows.every((row, i) => {
        const record = records[i]
        const before = records[i - 1]
        return (
          record !== undefined &&
          Number(row.seq) === i + 1 &&
          record.seq === i + 1 &&
          row.key_id === record.key.kid &&
          (i === 0 || (before !== undefined && keyThumbprint(record.previous!) === before.key.kid))
        )
      })
    const valid = rows.flatMap((row) => {
      const { rotation, record } = open(row.record)
      return rotation && record ? [{ rotation, record }] : []
    })
    const trusted = trustedKeys(
      key.publicJwk,
      valid.map((v) => v.rotation)
    )
    const ofTrusted = valid.filter(({ record }) => trusted.has(record.key.kid!))
    return {
      trusted,
      intact,
      keySet: {
        keys: ofTrusted.map(({ record }) => publicSigningJwk(record.key)).reverse(),
        rotations: ofTrusted.map(({ rotation }) => rotation)
      }
    }
  })

  const refuse = (detail: string) => Effect.fail(new SigningKeyError({ detail }))

  /**
   * At start-up (inside the start-up lock): registers this process's key on a database that has
   * none, or checks that it is the key the database's chains are signed with now. Refuses, saying
   * which key signs and how to fix it, when it is another.
   */
  const register = Effect.gen(function* () {
    const ring = yield* rows
    const ours = shortKey(key.keyId)
    if (ring.length === 0) {
      // A database from before key records: its entries name the key that signed them.
      const [foreign] = yield* sql<{ key_id: string }>`
        SELECT key_id FROM ledger_entries WHERE key_id <> ${key.keyId}
        UNION ALL SELECT key_id FROM ledger_checkpoints WHERE key_id <> ${key.keyId} LIMIT 1`
      if (foreign) {
        return yield* refuse(
          `this database's hash chains were signed with the key ${shortKey(foreign.key_id)}…, but this process ` +
            `has the key ${ours}… (from ${key.source}). Start it with the key that signed them: give every ` +
            "process on this database the same UMO_SIGNING_KEY."
        )
      }
      const now = yield* Clock.currentTimeMillis
      const record: SigningKeyRecord = {
        type: "umo-signing-key",
        seq: 1,
        key: key.publicJwk,
        previous: null,
        created_at: new Date(now).toISOString()
      }
      yield* sql`INSERT INTO signing_keys ${sql.insert({
        seq: 1,
        key_id: key.keyId,
        record: JSON.stringify(signKeyRecord(record, [signerOf(key)]))
      })}`
      return
    }
    const { intact } = yield* read
    const last = ring.at(-1)!
    if (last.key_id === key.keyId) {
      if (!intact) {
        yield* Effect.logWarning(
          "the signing_keys table does not check out (a row was changed outside UMO): proofs will report the chains as tampered"
        )
      }
      return
    }
    if (!intact) {
      return yield* refuse(
        "this database's signing_keys table does not check out (a row is not a key record signed by the key " +
          `before it): it was changed outside UMO. Restore it from a backup; this process (key ${ours}…) will ` +
          "not sign alongside a key nobody endorsed."
      )
    }
    const since = open(last.record).record?.created_at
    const current = `the key ${shortKey(last.key_id)}…${since ? ` (signing since ${since})` : ""}`
    return yield* refuse(
      ring.some((row) => row.key_id === key.keyId)
        ? `this process's signing key ${ours}… (from ${key.source}) was retired by a key rotation: this ` +
            `database's hash chains are now signed with ${current}. Start every process with the current key ` +
            "(UMO_SIGNING_KEY)."
        : `this database's hash chains are signed with ${current}, not with this process's key ${ours}… ` +
            `(from ${key.source}). Every process serving one database must sign with the same key: give each ` +
            "the same UMO_SIGNING_KEY, or make this key the new one with `npm run umo -- signing-key rotate " +
            "--new-key FILE`, run with the current key."
    )
  })

  /**
   * Inside an append's transaction (after `holdSharedRotationLock`): fails unless this process's
   * key is still the one that signs, so a replica left running after a rotation stops appending.
   */
  const assertCurrent = (currentKeyId: string | null) =>
    currentKeyId === key.keyId
      ? Effect.void
      : Effect.fail(
          new LedgerError({
            reason: "SigningKeyRetired",
            detail:
              `this process's signing key ${shortKey(key.keyId)}… was retired by a key rotation (the current key ` +
              `is ${shortKey(currentKeyId ?? "none")}…): restart it with the current key`
          })
        )

  return { read, register, assertCurrent }
}

/**
 * Hands the signing over from `current` to `next`: appends a key record that both keys sign,
 * while holding the rotation lock exclusively, so every entry committed after it is signed with
 * `next` (replicas still holding `current` refuse to append). Entries signed before stay valid.
 */
export const rotate = (current: SigningKeyShape, next: SigningKeyShape) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${rotationLockKey})`
        const ring = yield* sql<KeyRow>`SELECT seq, key_id, record FROM signing_keys ORDER BY seq`
        if (ring.length === 0) {
          return yield* new SigningKeyError({
            detail:
              "no key signs this database yet: start the server once (it registers its key), then rotate"
          })
        }
        // The same checks as a start: only the key that signs now, in an intact ring, hands over.
        yield* make(sql, current).register
        if (ring.some((row) => row.key_id === next.keyId)) {
          return yield* new SigningKeyError({
            detail: `the new key ${shortKey(next.keyId)}… has signed for this database before; rotate to a key never used`
          })
        }
        const now = yield* Clock.currentTimeMillis
        const record: SigningKeyRecord = {
          type: "umo-signing-key",
          seq: ring.length + 1,
          key: next.publicJwk,
          previous: current.publicJwk,
          created_at: new Date(now).toISOString()
        }
        yield* sql`INSERT INTO signing_keys ${sql.insert({
          seq: record.seq,
          key_id: next.keyId,
          record: JSON.stringify(signKeyRecord(record, [signerOf(current), signerOf(next)]))
        })}`
        return record
      })
    )
  })

/** The key ring as stored, oldest first, each row with what its record says (when it checks out). */
export const list = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<KeyRow>`SELECT seq, key_id, record FROM signing_keys ORDER BY seq`
  return rows.map((row) => {
    let record: SigningKeyRecord | undefined
    try {
      record = openKeyRecord(JSON.parse(row.record))
    } catch {}
    return { seq: Number(row.seq), key_id: row.key_id, record }
  })
})
