/**
 * The thread PGlite runs on (see PgliteSqlClient.ts). PGlite executes a statement synchronously
 * inside its WebAssembly PostgreSQL, so on the event loop every query would hold up every other
 * request, `/health` and MCP included. Here it answers one message per request, in the order asked.
 */
import { parentPort } from "node:worker_threads"
import { PGlite, type Results } from "@electric-sql/pglite"
import { vector } from "@electric-sql/pglite-pgvector"

/** What the client asks of the thread. */
export type PgliteOp =
  | { readonly op: "open"; readonly dataDir: string | undefined }
  | {
      readonly op: "query"
      readonly sql: string
      readonly params: ReadonlyArray<unknown>
      readonly rowMode: "object" | "array"
    }
  | { readonly op: "exec"; readonly sql: string }
  | { readonly op: "close" }

/** A request as sent; `id` pairs the answer with it. */
export type PgliteRequest = PgliteOp & { readonly id: number }

/** A PostgreSQL error as far as the client classifies it (a thrown Error loses these fields in a clone). */
export interface PgliteFailure {
  readonly code: string | undefined
  readonly constraint: string | undefined
  readonly message: string
}

/** The answer: PGlite's result as it gave it (`Results`, `Array<Results>` for exec), or its error. */
export type PgliteResponse =
  | { readonly id: number; readonly ok: true; readonly value: Results | Array<Results> | undefined }
  | { readonly id: number; readonly ok: false; readonly error: PgliteFailure }

const port = parentPort
if (port === null) throw new Error("PgliteWorker.ts runs as a worker thread, started by PgliteSqlClient.ts")

let db: PGlite | undefined

/**
 * PostgreSQL's page cache inside PGlite's WebAssembly memory. Its default, 128 MB, is the largest
 * single part of a process at rest, and wasted twice over: the operating system caches the same
 * files. At 32 MB a database of 200,000 rows held 241 MB resident against 391 MB.
 */
const sharedBuffers = "32MB"

const opened = () => {
  if (db === undefined) throw new Error("the PGlite database is not open")
  return db
}

const answer = async (request: PgliteRequest): Promise<Results | Array<Results> | undefined> => {
  switch (request.op) {
    case "open": {
      db = await PGlite.create(request.dataDir, {
        extensions: { vector },
        startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`]
      })
      await db.exec("CREATE EXTENSION IF NOT EXISTS vector")
      return undefined
    }
    case "query":
      return opened().query(request.sql, request.params as Array<unknown>, { rowMode: request.rowMode })
    case "exec":
      return opened().exec(request.sql)
    case "close":
      await db?.close()
      db = undefined
      return undefined
  }
}

const failure = (cause: unknown): PgliteFailure => {
  const error = cause as { code?: unknown; constraint?: unknown; message?: unknown } | null | undefined
  return {
    code: typeof error?.code === "string" ? error.code : undefined,
    constraint: typeof error?.constraint === "string" ? error.constraint : undefined,
    message: typeof error?.message === "string" ? error.message : String(cause)
  }
}

const reply = (response: PgliteResponse) => {
  try {
    port.postMessage(response)
  } catch (cause) {
    // A value structured clone cannot carry fails that request, not the thread.
    port.postMessage({ id: response.id, ok: false, error: failure(cause) } satisfies PgliteResponse)
  }
}

port.on("message", (request: PgliteRequest) => {
  answer(request).then(
    (value) => reply({ id: request.id, ok: true, value }),
    (cause: unknown) => reply({ id: request.id, ok: false, error: failure(cause) })
  )
})
