import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Memories that expire, and memories nothing may supersede. `expires_at` (null: never) leaves a
 * memory out of every read from that instant; the sweeper finds the expired ones of every account
 * through `memories_expiry` (only rows that expire are in it) and erases them with a signed
 * receipt. `immutable` is read under the account's lock by every supersession.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memories ADD COLUMN expires_at timestamptz`
  yield* sql`ALTER TABLE memories ADD COLUMN immutable boolean NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX memories_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL`
})
