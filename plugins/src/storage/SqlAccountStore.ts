import { randomUUID } from "node:crypto"
import { type Account, AccountStore, type ApiKeyRecord } from "@umo/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isoUtc, returning, storeError } from "./SqlFailure.js"

// The api_keys columns of an ApiKeyRecord, under a table alias prefix such as "k." (or none).
const keyColumns = (prefix: string) =>
  `${prefix}account_id::text AS account_id, ${prefix}key_id, ${prefix}status, ${isoUtc(`${prefix}created_at`)} AS created_at`

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const ensureAccount = (name: string) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO accounts (account_id, name) VALUES (${randomUUID()}, ${name}) ON CONFLICT (name) DO NOTHING`
      const [account] = yield* sql<Account>`
        SELECT account_id::text AS account_id, name, workspace_id, tier FROM accounts WHERE name = ${name}`
      return account!
    }).pipe(Effect.mapError(storeError("could not create the account")))

  /**
   * Adds a key, or finds it when it is already there. Two processes that start together with the
   * same configured key both insert it: ON CONFLICT with no target covers the primary key (key_id)
   * and key_hash alike, so the second inserts nothing and reads the first's row.
   */
  const addKey = (accountId: string, keyId: string, keyHash: string) =>
    Effect.gen(function* () {
      const [inserted] = yield* returning<ApiKeyRecord>(
        sql,
        sql`INSERT INTO api_keys (account_id, key_id, key_hash) VALUES (${accountId}, ${keyId}, ${keyHash})
          ON CONFLICT DO NOTHING`,
        keyColumns("")
      )
      if (inserted !== undefined) return inserted
      const [existing] = yield* sql<ApiKeyRecord>`
        SELECT ${sql.unsafe(keyColumns(""))} FROM api_keys WHERE key_hash = ${keyHash}`
      // Nothing inserted and no such key: another key has this key id (a public prefix).
      if (existing === undefined)
        return yield* Effect.fail(new Error(`key id ${keyId} is taken by another key`))
      return existing
    }).pipe(Effect.mapError(storeError("could not add the key")))

  const findByKeyHash = (keyHash: string) =>
    sql<ApiKeyRecord & { name: string; workspace_id: string | null; tier: string }>`
      SELECT ${sql.unsafe(keyColumns("k."))}, a.name, a.workspace_id, a.tier
      FROM api_keys k JOIN accounts a USING (account_id)
      WHERE k.key_hash = ${keyHash} AND k.status = 'active'`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullishOr(rows[0]), (row) => ({
          account: {
            account_id: row.account_id,
            name: row.name,
            workspace_id: row.workspace_id,
            tier: row.tier
          },
          key: {
            account_id: row.account_id,
            key_id: row.key_id,
            status: row.status,
            created_at: row.created_at
          }
        }))
      ),
      Effect.mapError(storeError("could not look the key up"))
    )

  const listKeys = () =>
    sql<ApiKeyRecord & { account_name: string }>`
      SELECT ${sql.unsafe(keyColumns("k."))}, a.name AS account_name
      FROM api_keys k JOIN accounts a USING (account_id) ORDER BY k.created_at, k.key_id`.pipe(
      Effect.mapError(storeError("could not list keys"))
    )

  const revokeKey = (keyId: string) =>
    sql`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE key_id = ${keyId} AND status = 'active'
        RETURNING key_id`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.mapError(storeError("could not revoke the key"))
    )

  return AccountStore.of({ ensureAccount, addKey, findByKeyHash, listKeys, revokeKey })
})

export const layer = Layer.effect(AccountStore, make)
