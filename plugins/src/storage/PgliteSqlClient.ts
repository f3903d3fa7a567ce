import { mkdirSync } from "node:fs"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite, type Results } from "@electric-sql/pglite"
import { vector } from "@electric-sql/pglite-pgvector"
import { Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection } from "effect/sql"
import {
  ConnectionError,
  ConstraintError,
  DeadlockError,
  SerializationError,
  SqlError,
  type SqlErrorReason,
  SqlSyntaxError,
  UniqueViolation,
  UnknownError
} from "effect/sql/SqlError"
import { holdDataDir } from "./DataDirLock.js"

export interface PgliteOptions {
  /** Directory of the database files; omitted, the database lives in memory. */
  readonly dataDir?: string | undefined
}

/** Maps PostgreSQL's SQLSTATE (PGlite raises the server's own errors) to Effect's error reasons. */
const classify = (cause: unknown, operation: string): SqlErrorReason => {
  const error = cause as { code?: string; constraint?: string; message?: string }
  const props = { cause, message: error?.message ?? String(cause), operation }
  const code = error?.code ?? ""
  if (code === "23505") return new UniqueViolation({ ...props, constraint: error.constraint ?? "unknown" })
  if (code.startsWith("23")) return new ConstraintError(props)
  if (code.startsWith("42")) return new SqlSyntaxError(props)
  if (code === "40P01") return new DeadlockError(props)
  if (code === "40001") return new SerializationError(props)
  return new UnknownError(props)
}

const query = <A>(operation: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => new SqlError({ reason: classify(cause, operation) }) })

const makeConnection = (db: PGlite): SqlConnection.Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(
      query("execute", () => db.query<object>(sql, params as Array<unknown>)),
      (result) => result.rows
    )
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(
      query("executeValues", () =>
        db.query<Array<unknown>>(sql, params as Array<unknown>, { rowMode: "array" })
      ),
      (result) => result.rows
    )
  const execute: SqlConnection.Connection["execute"] = (sql, params, transformRows) =>
    transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params)
  return {
    execute,
    executeUnprepared: execute,
    executeRaw: (sql, params) =>
      params.length === 0
        ? query("executeRaw", () => db.exec(sql)).pipe(
            Effect.map((results) => results.at(-1) ?? { rows: [] })
          )
        : query("executeRaw", () => db.query(sql, params as Array<unknown>)),
    executeValues: values,
    executeValuesUnprepared: values,
    // PGlite has no cursors over its wire protocol: a stream is the whole result, emitted in order.
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(execute(sql, params, transformRows))
  }
}

/** A COMMIT on an aborted transaction answers ROLLBACK; report it instead of losing the writes. */
const commit = (connection: SqlConnection.Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as Results).command === "ROLLBACK"
      ? Effect.fail(
          new SqlError({
            reason: new UnknownError({
              cause: new Error("COMMIT rolled back an aborted transaction"),
              message: "PgliteSqlClient: COMMIT rolled back an aborted transaction",
              operation: "commit"
            })
          })
        )
      : Effect.void
  )

/**
 * An Effect `SqlClient` over PGlite, with pgvector loaded. PGlite runs one query at a time on a
 * single connection, so one semaphore guards it: a transaction holds it from BEGIN to COMMIT, and
 * every other statement waits for it, so concurrent fibers never interleave inside a transaction.
 */
export const make = (options: PgliteOptions = {}) =>
  Effect.gen(function* () {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true })
      yield* holdDataDir(options.dataDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const db = await PGlite.create(options.dataDir, { extensions: { vector } })
          await db.exec("CREATE EXTENSION IF NOT EXISTS vector")
          return db
        },
        catch: (cause) =>
          new SqlError({
            reason: new ConnectionError({
              cause,
              message: `could not open the PGlite database${options.dataDir ? ` in ${options.dataDir}` : ""}: ${String(cause)}`,
              operation: "connect"
            })
          })
      }),
      (db) => Effect.promise(() => db.close())
    )
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(makeConnection(db)),
      semaphore
    })
    return yield* SqlClient.make({
      ...acquirers,
      commit,
      compiler: PgClient.makeCompiler(),
      driver: "pglite",
      prepareTransactionControls: false,
      spanAttributes: [
        ["db.system.name", "postgresql"],
        ["db.namespace", options.dataDir ?? "memory"]
      ]
    })
  })

export const layer = (options: PgliteOptions = {}): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
