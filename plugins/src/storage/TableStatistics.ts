import { Effect, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { isCitus } from "./CitusDistribution.js"

/** The tables whose statistics steer search plans. */
const searchTables = "memories, memory_chunks, search_terms, search_postings"

/**
 * Keeps the planner's statistics about memories fresh. PGlite has no autovacuum, and a
 * PostgreSQL server's may be off or behind a bulk load. With statistics from when an account was
 * small, the planner scanned all 10,000 vectors of an account instead of using the HNSW index
 * (65 ms instead of 10).
 *
 * Like autovacuum's defaults, it analyzes once the writes since the last analysis pass
 * 50 + 10% of the memories then stored. The analysis runs in the background, one at a time, in
 * the store's scope; a failed one is retried after the next write.
 *
 * On a Citus coordinator it does nothing: the memories live in shards on the workers, PostgreSQL
 * servers whose autovacuum analyzes them, and each routed query is planned there. An ANALYZE from
 * the coordinator fans out over every shard and leaves the coordinator's own `reltuples` at 0, so
 * the rule above would fire every 50 writes (358–391 times in a 20,000-capture load, about half
 * of the cluster's CPU, against 38 on one server).
 */
export const make = (sql: SqlClient.SqlClient, scope: Scope.Scope) =>
  Effect.gen(function* () {
    if (yield* isCitus(sql).pipe(Effect.orElseSucceed(() => false)))
      return { wrote: (_count: number) => Effect.void }
    const [stored] = yield* sql<{ memories: number; unanalyzed: number }>`
      SELECT greatest(c.reltuples, 0)::float8 AS memories, coalesce(s.n_mod_since_analyze, 0)::float8 AS unanalyzed
      FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.oid = 'memories'::regclass`.pipe(Effect.orElseSucceed(() => []))
    let memories = Number(stored?.memories ?? 0)
    let writes = Number(stored?.unanalyzed ?? 0)
    let analyzing = false
    /** Autovacuum's default threshold: 50 writes plus 10% of the memories stored. */
    const due = () => writes >= 50 + 0.1 * memories

    const analyze = (counted: number) =>
      Effect.gen(function* () {
        yield* sql.unsafe(`ANALYZE ${searchTables}`)
        const [row] = yield* sql<{ memories: number }>`
          SELECT greatest(reltuples, 0)::float8 AS memories FROM pg_class WHERE oid = 'memories'::regclass`
        memories = Number(row?.memories ?? memories)
      }).pipe(
        Effect.catch(() => Effect.sync(() => (writes += counted))),
        Effect.ensuring(Effect.sync(() => (analyzing = false)))
      )

    /** Counts `count` memories written or deleted; starts an analysis when enough have been. */
    const wrote = (count: number) =>
      Effect.suspend(() => {
        writes += count
        if (analyzing || !due()) return Effect.void
        analyzing = true
        const counted = writes
        writes = 0
        return Effect.asVoid(Effect.forkIn(analyze(counted), scope))
      })

    if (due()) yield* wrote(0)
    return { wrote }
  })
