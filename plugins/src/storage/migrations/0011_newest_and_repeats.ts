import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Lists go newest first by the memory's own time, as a person reads them (a message from 2024 is
 * not "today" because it was imported today), then by capture: the indexes that kept a list a walk
 * rather than a sort of the account are made again in that order, for every narrowing they served.
 *
 * A capture that repeats a current memory (same text, source, scope and metadata) is answered with that
 * memory (see `SqlDuplicates`): a new index finds the account's current memories of one text
 * without reading the rest of the account, under the chain lock every capture of the account waits on.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const newest = "content_time DESC, created_at DESC, umo_id DESC"
  for (const index of ["memories_newest", "memories_source_newest", "memories_current"])
    yield* sql.unsafe(`DROP INDEX ${index}`)
  yield* sql.unsafe(`CREATE INDEX memories_newest ON memories (account_id, ${newest})`)
  yield* sql.unsafe(`CREATE INDEX memories_source_newest ON memories (account_id, source, ${newest})`)
  yield* sql.unsafe(
    `CREATE INDEX memories_current ON memories (account_id, ${newest}) WHERE superseded_by IS NULL`
  )
  for (const scope of ["user_id", "agent_id", "session_id"]) {
    yield* sql.unsafe(`DROP INDEX memories_${scope}`)
    yield* sql.unsafe(`CREATE INDEX memories_${scope} ON memories (account_id, ${scope}, ${newest})
      WHERE ${scope} IS NOT NULL`)
  }
  yield* sql`CREATE INDEX memories_current_content ON memories (account_id, content_hash)
    WHERE superseded_by IS NULL`
})
