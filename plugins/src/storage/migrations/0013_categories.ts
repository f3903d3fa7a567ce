import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The categories a memory is filed under (a JSON list of names, `[]` for the memories captured
 * before there were any), found through a GIN index by containment as metadata is; and each
 * account's own category list, when it has one (the default list otherwise).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memories ADD COLUMN categories jsonb NOT NULL DEFAULT '[]'::jsonb`
  yield* sql`CREATE INDEX memories_categories ON memories USING gin (categories jsonb_path_ops)`
  yield* sql`CREATE TABLE account_categories (
    account_id uuid PRIMARY KEY,
    categories jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
})
