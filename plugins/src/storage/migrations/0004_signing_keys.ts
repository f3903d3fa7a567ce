import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The service's signing keys, one row per key in the order they signed: the first key, then each
 * key a rotation put in its place. `record` is the signed key record (see `KeyRing` in
 * @umo/core); `seq` and `key_id` repeat what it says, for ordering and lookup, and are checked
 * against it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE signing_keys (
    seq integer PRIMARY KEY,
    key_id text NOT NULL UNIQUE,
    record text NOT NULL
  )`
})
