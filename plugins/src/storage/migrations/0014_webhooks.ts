import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * An account's webhooks: where each posts, its name (null: none), the events it hears, the secret its deliveries are
 * signed with (HMAC-SHA256; the secret must be kept to sign), and its cursor through the account's
 * hash chain (`delivered_seq`), with the failures of the delivery after it and when to retry; a
 * lease lets one process deliver it at a time.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhooks (
    webhook_id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    url text NOT NULL,
    name text,
    events jsonb NOT NULL,
    secret text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    delivered_seq integer NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    retry_at timestamptz NOT NULL DEFAULT now(),
    leased_until timestamptz
  )`
  yield* sql`CREATE INDEX webhooks_account ON webhooks (account_id)`
})
