import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Memories that belong to someone and change over time. Each memory gets its scope inside the
 * account (`user_id`, `agent_id`, `session_id`) and the caller's `metadata`, and — once a newer
 * memory replaces it — `superseded_by` and `superseded_at` (what a memory supersedes is read back
 * through them).
 * Supersession entries of the chain name their successor. `memory_facts` holds the facts each
 * memory states, by slot, so a capture finds the current memories of its slots at once.
 *
 * Indexes: each scope field leads an index in list order (filtered lists and erasure read one
 * scope's rows, newest first, without touching the rest of the account); metadata containment
 * (`@>`) has a GIN index; current memories in list order have a partial index, as default
 * reads leave superseded ones out.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memories
    ADD COLUMN user_id text,
    ADD COLUMN agent_id text,
    ADD COLUMN session_id text,
    ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    ADD COLUMN superseded_by uuid,
    ADD COLUMN superseded_at timestamptz`
  for (const scope of ["user_id", "agent_id", "session_id"]) {
    yield* sql.unsafe(`CREATE INDEX memories_${scope} ON memories (account_id, ${scope}, created_at DESC, umo_id DESC)
      WHERE ${scope} IS NOT NULL`)
  }
  yield* sql`CREATE INDEX memories_metadata ON memories USING gin (metadata jsonb_path_ops)`
  yield* sql`CREATE INDEX memories_current ON memories (account_id, created_at DESC, umo_id DESC)
    WHERE superseded_by IS NULL`
  yield* sql`CREATE INDEX memories_successor ON memories (account_id, superseded_by)
    WHERE superseded_by IS NOT NULL`
  yield* sql`ALTER TABLE ledger_entries ADD COLUMN superseded_by uuid`
  yield* sql`CREATE TABLE memory_facts (
    account_id uuid NOT NULL,
    umo_id uuid NOT NULL,
    slot text NOT NULL,
    value text NOT NULL,
    mode text NOT NULL,
    PRIMARY KEY (account_id, umo_id, slot, value, mode),
    FOREIGN KEY (account_id, umo_id) REFERENCES memories ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX memory_facts_slot ON memory_facts (account_id, slot)`
  // One receipt for an erasure of many memories (their deletion entries are in the chain).
  yield* sql`CREATE TABLE erasure_receipts (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    first_seq integer NOT NULL,
    last_seq integer NOT NULL,
    deleted_at text NOT NULL,
    receipt text NOT NULL,
    PRIMARY KEY (account_id, first_seq)
  )`
})
