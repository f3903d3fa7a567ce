import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** An arbitrary constant naming UMO's start-up lock among PostgreSQL advisory locks. */
const startupLockKey = 7_414_209_118

/**
 * Runs `effect` in a transaction holding a database-wide advisory lock, so server processes that
 * start together on one database migrate and pin the embedder one after the other. Concurrent
 * `CREATE … IF NOT EXISTS` statements otherwise race in PostgreSQL's catalog and one fails with
 * a unique violation (seen with two processes creating the HNSW index at once).
 */
export const withStartupLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.andThen(sql`SELECT pg_advisory_xact_lock(${startupLockKey})`, effect)
    )
  })
