import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { storeError } from "./SqlFailure.js"

/** How often buckets idle long enough to be full again are deleted (they mean the same as none). */
const sweepEveryMs = 60_000

/** A PostgreSQL text[] literal of bucket names (hashes and addresses; anything else becomes `_`). */
const arrayLiteral = (names: ReadonlyArray<string>) =>
  `{${names.map((name) => `"${name.replace(/[^\w:.%-]/g, "_")}"`).join(",")}}`

/**
 * Token buckets in the database (`rate_buckets`, migration 0006), shared by every server process
 * on it: one statement per take, which locks the named buckets, refills them for the time passed
 * and takes a token from each when all hold one. Answers the emptiest bucket's tokens before the
 * take (so the take happened exactly when that is at least 1).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A token is not worth a durable commit: waiting for the WAL to reach the disk cost every request
  // 3 ms at the median here (8 at p95), and with a synchronous standby, one that is down would hold
  // up every request, /health included. So each statement turns synchronous_commit off for its own
  // (implicit) transaction, `set_config(…, true)`: no transaction block, whose ROLLBACK on a
  // connection lost in a failover would be a defect. A crash may forget the last few takes.
  const unhurried = sql.literal("set_config('synchronous_commit', 'off', true)")
  let sweptAt = 0
  const sweep = (capacity: number, perMs: number, nowMs: number) =>
    nowMs - sweptAt < sweepEveryMs
      ? Effect.void
      : Effect.suspend(() => {
          sweptAt = nowMs
          return Effect.ignore(
            sql`WITH swept AS (DELETE FROM rate_buckets WHERE at < ${nowMs - Math.ceil(capacity / perMs)} RETURNING 1)
              SELECT ${unhurried}, (SELECT count(*) FROM swept)`
          )
        })

  const take = (names: ReadonlyArray<string>, capacity: number, perMs: number, nowMs: number) =>
    sql<{ lowest: number }>`
      SELECT ${unhurried}, umo_take_token(${arrayLiteral(names)}::text[], ${capacity}, ${perMs}, ${nowMs}) AS lowest`.pipe(
      Effect.map(([row]) => Number(row!.lowest)),
      Effect.tap(() => sweep(capacity, perMs, nowMs)),
      Effect.mapError(storeError("could not take a rate-limit token"))
    )

  return { take }
})
