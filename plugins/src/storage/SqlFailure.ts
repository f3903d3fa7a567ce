import { LedgerError, StoreError } from "@umo/core"
import { Effect } from "effect"
import { SqlClient, type Statement } from "effect/sql"

/**
 * SQLSTATEs of a server shutting down or starting up (57P01–57P03), out of connections (53300), or
 * read-only (25006: a standby, during a failover, before the sessions reach the new primary).
 * The PostgreSQL client files them as UnknownError, but each passes on its own: the outage test
 * met "the database system is starting up" on connecting during a restart.
 */
const passingStates = new Set(["57P01", "57P02", "57P03", "53300", "25006"])

/**
 * Whether a failure means the database could not be reached (worth a 503 and a retry) rather than
 * a failed statement: a SqlError whose reason is a ConnectionError or carries one of the SQLSTATEs
 * above, or a port error that already says "Unavailable".
 */
export const isUnavailable = (cause: unknown): boolean => {
  const reason = (cause as { readonly reason?: unknown } | undefined)?.reason as
    | { readonly _tag?: string; readonly cause?: { readonly code?: unknown } }
    | "Unavailable"
    | undefined
  if (reason === "Unavailable") return true
  if (typeof reason !== "object" || reason === null) return false
  return reason._tag === "ConnectionError" || passingStates.has(String(reason.cause?.code))
}

/** Wraps a database failure as the MemoryStore/AccountStore port's error, saying what failed. */
export const storeError =
  (detail: string) =>
  (cause: { readonly message: string }): StoreError =>
    cause instanceof StoreError
      ? cause
      : new StoreError({
          reason:
            cause instanceof LedgerError && cause.reason === "SigningKeyRetired"
              ? "SigningKeyRetired"
              : isUnavailable(cause)
                ? "Unavailable"
                : "Failed",
          detail: `${detail}: ${cause.message}`,
          cause
        })

/**
 * `sql.withTransaction`, with the database lost mid-transaction reported as an Unavailable
 * StoreError (a 503) rather than a defect (a 500): when the connection drops, the client cannot
 * send the ROLLBACK and turns that into a defect (found by the outage test under load).
 */
export const transaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  sql.withTransaction(effect).pipe(
    Effect.catchDefect((defect) =>
      isUnavailable(defect)
        ? Effect.fail(
            new StoreError({
              reason: "Unavailable",
              detail: `the database connection was lost: ${(defect as { message?: string }).message ?? ""}`,
              cause: defect
            })
          )
        : Effect.die(defect)
    )
  )

/**
 * Runs `effect`'s reads in one consistent snapshot: a read-only REPEATABLE READ transaction, or the
 * caller's open transaction. A proof or an audit reads several tables and several rows of a chain;
 * under READ COMMITTED each statement sees its own snapshot, so an append landing between two of
 * them made an intact chain look cut (a false tamper alarm under load).
 */
export const readSnapshot = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  transaction(sql, effect).pipe(
    Effect.provideService(SqlClient.BeginTransaction, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
  )

/**
 * A timestamptz column as ISO 8601 UTC with milliseconds, the form every timestamp of the API has,
 * rendered by the database so PGlite and PostgreSQL give the same text.
 */
export const isoUtc = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * The rows a change (an INSERT, UPDATE or DELETE without RETURNING) touched, read through
 * `columns`. Citus refuses functions that are not immutable in RETURNING itself (`to_char` of
 * `isoUtc`, on reference and distributed tables), so the change returns its rows whole and a
 * SELECT over them renders the columns: the same answer on every engine.
 */
export const returning = <A extends object>(
  sql: SqlClient.SqlClient,
  change: Statement.Fragment,
  columns: string
) => sql<A>`WITH changed AS (${change} RETURNING *) SELECT ${sql.unsafe(columns)} FROM changed`
