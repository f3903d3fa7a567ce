import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Finding a memory's neighbours in its source's timeline (search ranking's context signal). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX memories_timeline ON memories (account_id, (coalesce(source, '')), content_time, umo_id)`
})
