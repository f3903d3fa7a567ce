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
  // With a synchronous standby, every commit waits for it, and a standby that is down would hold
  // up every request at its rate limit, /health included: a token is not worth that wait, so the
  // buckets' writes commit locally (a token lost in a failover costs nothing).
  const [standbys] = yield* sql<{
    names: string
  }>`SELECT current_setting('synchronous_standby_names') AS names`.pipe(Effect.orElseSucceed(() => []))
  const local = <A, E, R>(write: Effect.Effect<A, E, R>) =>
    (standbys?.names ?? "").trim() === ""
      ? write
      : sql.withTransaction(Effect.andThen(sql`SET LOCAL synchronous_commit = local`, write))
  let sweptAt = 0
  const sweep = (capacity: number, perMs: number, nowMs: number) =>
    nowMs - sweptAt < sweepEveryMs
      ? Effect.void
      : Effect.suspend(() => {
          sweptAt = nowMs
          return Effect.ignore(
            local(sql`DELETE FROM rate_buckets WHERE at < ${nowMs - Math.ceil(capacity / perMs)}`)
          )
        })

  const take = (names: ReadonlyArray<string>, capacity: number, perMs: number, nowMs: number) =>
    local(
      sql<{ lowest: number }>`
        SELECT umo_take_token(${arrayLiteral(names)}::text[], ${capacity}, ${perMs}, ${nowMs}) AS lowest`
    ).pipe(
      Effect.map(([row]) => Number(row!.lowest)),
      Effect.tap(() => sweep(capacity, perMs, nowMs)),
      Effect.mapError(storeError("could not take a rate-limit token"))
    )

  return { take }
})
