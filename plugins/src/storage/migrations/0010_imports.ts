import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Memories brought in from an export (of UMO or of Mem0): each keeps where it came from —
 * `imported_from`, the original's id and capture time and whether its proof held — and
 * `memory_origins` finds a memory by its original (`umo:<id>`, `mem0:<id>`), in the same
 * transaction as its capture, so an interrupted import resumes without storing anything twice and
 * the originals' supersessions are linked between their copies. A memory deleted later takes its
 * origin with it: importing it again brings it back.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memories ADD COLUMN imported_from jsonb`
  yield* sql`CREATE TABLE memory_origins (
    account_id uuid NOT NULL,
    origin text NOT NULL,
    umo_id uuid NOT NULL,
    PRIMARY KEY (account_id, origin),
    FOREIGN KEY (account_id, umo_id) REFERENCES memories ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX memory_origins_memory ON memory_origins (account_id, umo_id)`
})
