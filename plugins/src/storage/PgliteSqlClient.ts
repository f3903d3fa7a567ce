import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { Results } from "@electric-sql/pglite"
import { Effect, Layer, type Semaphore, Stream } from "effect"
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
import { workerScript } from "../support/WorkerPool.js"
import { holdDataDir } from "./DataDirLock.js"
import type { PgliteOp, PgliteResponse } from "./PgliteWorker.js"
import { makeTurnLock } from "./TurnLock.js"

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

/** The PGlite thread can answer no more: it died, exited, or the client closed it. */
class ThreadGone extends Error {}

/**
 * PGlite on its own thread (PgliteWorker.ts), with the calls of a `PGlite` instance: each call is a
 * message with an id, answered by the message with the same id. The thread keeps the process alive
 * only while a call waits on it. If it dies, every waiting and later call fails with `ThreadGone`.
 */
interface PgliteThread {
  readonly query: <T>(
    sql: string,
    params: ReadonlyArray<unknown>,
    rowMode?: "object" | "array"
  ) => Promise<Results<T>>
  readonly exec: (sql: string) => Promise<Array<Results>>
  /** Closes the database (its files flushed) and ends the thread. */
  readonly close: () => Promise<void>
}

/** Starts the thread and opens the database in it. */
const startThread = async (dataDir: string | undefined): Promise<PgliteThread> => {
  const script = workerScript(import.meta.url, "PgliteWorker")
  const worker = new Worker(script.filename, script.options)
  worker.unref()
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (cause: unknown) => void }>()
  let nextId = 0
  let gone: ThreadGone | undefined
  const settled = (id: number) => {
    const waiter = pending.get(id)
    pending.delete(id)
    if (pending.size === 0) worker.unref()
    return waiter
  }
  const end = (cause: ThreadGone) => {
    gone ??= cause
    for (const id of [...pending.keys()]) settled(id)?.reject(gone)
  }
  worker.on("message", (response: PgliteResponse) => {
    const waiter = settled(response.id)
    if (response.ok) waiter?.resolve(response.value)
    else waiter?.reject(Object.assign(new Error(response.error.message), response.error))
  })
  worker.on("error", (cause: unknown) =>
    end(
      new ThreadGone(`the PGlite thread failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
        cause
      })
    )
  )
  // An answer that could not be read belongs to an unknown request: end them all rather than leave one waiting.
  worker.on("messageerror", (cause) => {
    end(new ThreadGone(`an answer of the PGlite thread could not be read: ${cause.message}`, { cause }))
    void worker.terminate()
  })
  worker.on("exit", (code) => end(new ThreadGone(`the PGlite thread exited (code ${code})`)))
  const call = <A>(op: PgliteOp) =>
    new Promise<A>((resolve, reject) => {
      if (gone !== undefined) return reject(gone)
      const id = nextId++
      // Posted before it waits: a request that cannot be cloned throws here, and is never left waiting.
      worker.postMessage({ ...op, id })
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      if (pending.size === 1) worker.ref()
    })
  const close = async () => {
    if (gone === undefined) await call({ op: "close" }).catch(() => undefined)
    end(new ThreadGone("the PGlite database is closed"))
    await worker.terminate()
  }
  await call({ op: "open", dataDir }).catch(async (cause: unknown) => {
    await close()
    throw cause
  })
  return {
    query: (sql, params, rowMode = "object") => call({ op: "query", sql, params, rowMode }),
    exec: (sql) => call({ op: "exec", sql }),
    close
  }
}

/**
 * Opens the database's thread; on a data directory PostgreSQL's initdb has yet to make, opens it
 * twice. initdb grows PGlite's WebAssembly memory to about 1 GB at its peak, and a WebAssembly
 * instance never gives pages back: reopened on a new thread, the database held 147 MB over Node
 * where the first thread kept 189 (a new directory, one query, 8 s later), for 0.3 s more once.
 */
const startFresh = async (dataDir: string | undefined): Promise<PgliteThread> => {
  if (dataDir === undefined || existsSync(join(dataDir, "PG_VERSION"))) return startThread(dataDir)
  await (await startThread(dataDir)).close()
  return startThread(dataDir)
}

const query = <A>(operation: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new SqlError({
        reason:
          cause instanceof ThreadGone
            ? new ConnectionError({ cause, message: cause.message, operation })
            : classify(cause, operation)
      })
  })

const makeConnection = (db: PgliteThread): SqlConnection.Connection => {
  const rows = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(
      query("execute", () => db.query<object>(sql, params)),
      (result) => result.rows
    )
  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(
      query("executeValues", () => db.query<Array<unknown>>(sql, params, "array")),
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
        : query("executeRaw", () => db.query(sql, params)),
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
 * single connection, so one lock guards it (`TurnLock`: single statements before transactions): a
 * transaction holds it from BEGIN to COMMIT, and every other statement waits for it, so
 * concurrent fibers never interleave inside a transaction.
 * PGlite works on a thread of its own, so this thread's event loop answers while a query runs; the
 * lock on `dataDir` stays here. Closing the scope closes the database and ends that thread.
 */
export const make = (options: PgliteOptions = {}) =>
  Effect.gen(function* () {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true })
      yield* holdDataDir(options.dataDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => startFresh(options.dataDir),
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
    const turns = makeTurnLock()
    // Effect's acquirers for one connection take a semaphore and use two of its calls: a lease
    // (`takeScoped`) for transactions and streams, a borrow (`withPermit`) for each single statement.
    const semaphore = {
      takeScoped: () => turns.take(false),
      withPermit: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.scoped(Effect.andThen(turns.take(true), effect))
    } as Pick<Semaphore.Semaphore, "takeScoped" | "withPermit"> as Semaphore.Semaphore
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
