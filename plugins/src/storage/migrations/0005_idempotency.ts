import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Idempotency keys (IETF draft "The Idempotency-Key HTTP Header Field"): what a capture answered,
 * stored in the capture's own transaction, so a retry with the same key is answered the same and
 * stores nothing again. `fingerprint` identifies the request the key was first used with.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_keys (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    key text NOT NULL,
    fingerprint text NOT NULL,
    response text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_age ON idempotency_keys (account_id, created_at)`
})
