import * as PgClient from "@effect/sql-pg/PgClient"
import { Context, Effect, Layer, Option } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlError } from "effect/sql"

import type { Connection } from "effect/sql/SqlConnection"
import { isUnavailable } from "./SqlFailure.js"

/**
 * The client reads go through: hot standbys of the primary when the deployment names some
 * (`UMO_DATABASE_READ_URLS`), as long as they have replayed what the caller may have written;
 * otherwise the primary itself. Writes and the hash chain never use it.
 */
export class ReadSqlClient extends Context.Service<ReadSqlClient, SqlClient.SqlClient>()(
  "@umo/plugins/ReadSqlClient"
) {}

/** The client for reads: the read replicas' when the layer provides them, else the primary's. */
export const readClient = Effect.gen(function* () {
  const replicas = yield* Effect.serviceOption(ReadSqlClient)
  return Option.isSome(replicas) ? replicas.value : yield* SqlClient.SqlClient
})

/**
 * When the caller's request began (a `performance.now()`): a read must see every write committed
 * before it, so a replica serves it only once it has replayed the primary's WAL as of a moment
 * after this. The server sets it per request; without it, each statement's own start counts.
 */
export const ReadsSince = Context.Reference<number | undefined>("@umo/plugins/ReadsSince", {
  defaultValue: () => undefined
})

/** A WAL position (`pg_lsn`, "16/B374D848") as a number of bytes. */
export const lsnBytes = (lsn: string): bigint => {
  const [high, low] = lsn.split("/")
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`)
}

export interface Replica {
  /** `host:port`, for log lines. */
  readonly name: string
  readonly client: SqlClient.SqlClient
}

export interface ReplicaOptions {
  /** The longest a read waits for a replica to replay up to the primary's position before reading from the primary. */
  readonly maxWaitMs?: number | undefined
  /** How long a replica that failed is left out. */
  readonly restMs?: number | undefined
}

interface ReplicaState extends Replica {
  /** The newest position it was seen to have replayed. */
  replayed: bigint
  /** Left out until (a `performance.now()`), after a failure. */
  restingUntil: number
  /** When its lag was last logged (at most one line per 10 s). */
  loggedAt: number
  /**
   * When it last failed to catch up within `maxWaitMs`: for `restMs` after that, reads do not wait
   * for it (a replica that stalls would cost every statement the full wait); they use it as soon
   * as a poll, made meanwhile in the background, shows it has caught up.
   */
  stalledAt: number
  polling: Promise<bigint> | undefined
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * A SqlClient that sends each statement (or transaction) to a replica that has replayed the
 * primary's WAL as of a moment after the caller's request began (`ReadsSince`), and to the
 * primary otherwise: so a caller always reads its own writes, whatever the replicas' lag.
 *
 * The primary's position is read once for the statements that can share it (one query for all
 * the reads that began before it was asked), and a replica's replayed position is remembered, so
 * a read usually costs one small query on the primary, made while other work goes on. A replica
 * that lags waits up to `maxWaitMs`; one that fails is left out for `restMs`; each with a log line.
 */
export const make = (
  primary: SqlClient.SqlClient,
  replicas: ReadonlyArray<Replica>,
  { maxWaitMs = 100, restMs = 5_000 }: ReplicaOptions = {}
) =>
  Effect.gen(function* () {
    const states: Array<ReplicaState> = replicas.map((r) => ({
      ...r,
      replayed: 0n,
      restingUntil: 0,
      loggedAt: Number.NEGATIVE_INFINITY,
      stalledAt: Number.NEGATIVE_INFINITY,
      polling: undefined
    }))
    let turn = 0
    /** The primary's position as last read, and when that read was asked. */
    let known: { readonly askedAt: number; readonly position: Promise<bigint> } | undefined

    const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)

    /** The primary's position as of a moment after `since`: one read for every caller that can share it. */
    const primaryPosition = (since: number): Promise<bigint> => {
      if (known !== undefined && known.askedAt >= since) return known.position
      const askedAt = performance.now()
      const position = run(
        Effect.map(primary<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`, ([row]) =>
          lsnBytes(row!.lsn)
        )
      )
      known = { askedAt, position }
      position.catch(() => {
        if (known?.position === position) known = undefined
      })
      return position
    }

    /** What a replica has replayed; it fails for a replica that was promoted (it replays no more). */
    const replayedBy = (replica: ReplicaState): Promise<bigint> => {
      replica.polling ??= run(
        Effect.map(
          replica.client<{ standby: boolean; lsn: string | null }>`
            SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn`,
          ([row]) => {
            if (row?.standby !== true) throw new Error("it accepts writes now (promoted): it replays no more")
            return row.lsn == null ? 0n : lsnBytes(row.lsn)
          }
        )
      ).then(
        (replayed) => {
          replica.polling = undefined
          if (replayed > replica.replayed) replica.replayed = replayed
          return replica.replayed
        },
        (cause: unknown) => {
          replica.polling = undefined
          throw cause
        }
      )
      return replica.polling
    }

    const logOnce = (replica: ReplicaState, message: string, cause?: unknown) => {
      const now = performance.now()
      if (now - replica.loggedAt < 10_000) return Effect.void
      replica.loggedAt = now
      return Effect.logWarning(message, ...(cause === undefined ? [] : [cause]))
    }

    const rest = (replica: ReplicaState, cause: unknown) =>
      Effect.suspend(() => {
        replica.restingUntil = performance.now() + restMs
        return logOnce(
          replica,
          `read replica ${replica.name} failed; reads go to the primary for ${restMs / 1000} s`,
          cause
        )
      })

    /** A replica that has replayed up to the primary's position as of `since`, if one can serve. */
    const choose = (since: number) =>
      Effect.gen(function* () {
        const now = performance.now()
        const ready = states.filter((r) => r.restingUntil <= now)
        if (ready.length === 0) return undefined
        const target = yield* Effect.tryPromise(() => primaryPosition(since)).pipe(Effect.option)
        if (Option.isNone(target)) return undefined
        const start = turn++
        for (let i = 0; i < ready.length; i++) {
          const replica = ready[(start + i) % ready.length]!
          if (replica.replayed >= target.value) return replica
          if (now - replica.stalledAt < restMs) {
            replayedBy(replica).catch(() => undefined)
            continue
          }
          const waited = yield* Effect.tryPromise(async () => {
            const deadline = performance.now() + maxWaitMs
            for (;;) {
              if ((await replayedBy(replica)) >= target.value) return true
              if (performance.now() >= deadline) return false
              await sleep(Math.min(5, maxWaitMs))
            }
          }).pipe(Effect.exit)
          if (waited._tag === "Success" && waited.value) return replica
          if (waited._tag === "Failure") yield* rest(replica, waited.cause)
          else {
            replica.stalledAt = performance.now()
            yield* logOnce(
              replica,
              `read replica ${replica.name} is ${target.value - replica.replayed} bytes of WAL behind the primary after ${maxWaitMs} ms; this read goes to another replica or the primary`
            )
          }
        }
        return undefined
      })

    /** A replica's connection whose failures, when they mean the replica is gone, rest it. */
    const watched = (replica: ReplicaState, connection: Connection): Connection => {
      const noted = <A>(effect: Effect.Effect<A, SqlError.SqlError>) =>
        Effect.tapError(effect, (error) => (isUnavailable(error) ? rest(replica, error) : Effect.void))
      return {
        execute: (sql, params, transform) => noted(connection.execute(sql, params, transform)),
        executeRaw: (sql, params) => noted(connection.executeRaw(sql, params)),
        executeStream: (sql, params, transform) => connection.executeStream(sql, params, transform),
        executeValues: (sql, params) => noted(connection.executeValues(sql, params)),
        executeValuesUnprepared: (sql, params) => noted(connection.executeValuesUnprepared(sql, params)),
        executeUnprepared: (sql, params, transform) =>
          noted(connection.executeUnprepared(sql, params, transform))
      }
    }

    const acquire = Effect.gen(function* () {
      const since = (yield* ReadsSince) ?? performance.now()
      const replica = yield* choose(since)
      if (replica === undefined) return yield* primary.reserve
      // A replica that cannot even give a connection is rested, and this read goes to the primary;
      // one that fails a statement is rested too (the statement's error goes to its caller, a 503).
      return yield* replica.client.reserve.pipe(
        Effect.map((connection) => watched(replica, connection)),
        Effect.catch((error) =>
          isUnavailable(error) ? Effect.andThen(rest(replica, error), primary.reserve) : Effect.fail(error)
        )
      )
    })

    return yield* SqlClient.make({
      acquirer: acquire,
      transactionAcquirer: acquire,
      compiler: PgClient.makeCompiler(),
      driver: "pg",
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["umo.read_replicas", replicas.map((r) => r.name).join(",")]
      ]
    })
  })

/** The ReadSqlClient over the primary's SqlClient and the replicas' (see `make`). */
export const layer = (replicas: ReadonlyArray<Replica>, options: ReplicaOptions = {}) =>
  Layer.effect(
    ReadSqlClient,
    Effect.flatMap(SqlClient.SqlClient, (primary) => make(primary, replicas, options))
  ).pipe(Layer.provide(Reactivity.layer))
