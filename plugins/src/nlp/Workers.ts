import { PluginFailure } from "@umo/core"
import { Effect, Exit, Request, RequestResolver } from "effect"
import type { Piscina } from "piscina"
import { workerPool } from "../support/WorkerPool.js"

/**
 * The tasks an NLP worker runs, by name; NlpWorker.ts maps each to its finder. Named here, not
 * taken from NlpWorker.ts, so that the finders (which call `runNlp`) and the worker (which calls
 * the finders) do not import each other through this file.
 */
export type TaskName = "normalized" | "entities" | "triples" | "enrichment" | "facts"

/** One task and its arguments (plain data: a worker's arguments are copied). */
export interface TaskCall {
  readonly task: TaskName
  readonly args: ReadonlyArray<unknown>
}

/** What a worker is sent: calls it answers in order, each with its result or its failure. */
export interface TaskMessage {
  readonly calls: ReadonlyArray<TaskCall>
}

/**
 * Texts of this many characters or more (one long text, or the texts of many calls made at once)
 * are read in a worker thread; fewer on the calling thread, where they take a few milliseconds
 * and a hop to a worker would cost about as much.
 */
export const offloadChars = 2_000

let pool: Piscina | undefined
/**
 * One NLP thread per process, made on first use: NLP over a long capture or a batch takes seconds,
 * and on the event loop it would hold up every other request, `/health` included. One thread, not
 * one per core: each loads the language engines and grows its own heap (two threads took the
 * server from 1.7 to 2.6 GB during a burst of 5,000 captures, for 9 % more captures a second), and
 * the cores are shared with the embedder's thread and the database anyway. It exits once idle for
 * 30 s and never keeps the process alive.
 */
const workers = () => {
  pool ??= workerPool(import.meta.url, "NlpWorker", { maxThreads: 1, idleTimeout: 30_000 })
  return pool
}

/** Messages sent to the NLP thread so far, and the calls they held (for tests). */
export const sent = { messages: 0, calls: 0 }

interface NlpCall extends Request.Request<unknown, PluginFailure> {
  readonly _tag: "NlpCall"
  readonly call: TaskCall
  readonly here: (...args: ReadonlyArray<unknown>) => unknown
}
const NlpCall = Request.tagged<NlpCall>("NlpCall")

const failure = (task: string, cause: unknown) =>
  new PluginFailure({ reason: "Failed", message: `NLP failed on ${task}: ${String(cause)}` })

/** The calls of one message to the NLP thread, answered together. */
const onWorker = (entries: ReadonlyArray<Request.Entry<NlpCall>>) =>
  Effect.tryPromise({
    try: (signal) => {
      sent.messages += 1
      sent.calls += entries.length
      const message: TaskMessage = { calls: entries.map((e) => e.request.call) }
      return workers().run(message, { signal }) as Promise<Array<{ ok: unknown } | { failed: string }>>
    },
    catch: (cause) => failure(entries.map((e) => e.request.call.task).join(", "), cause)
  }).pipe(
    Effect.map((results) =>
      entries.forEach((entry, i) => {
        const result = results[i]!
        entry.completeUnsafe(
          "ok" in result
            ? Exit.succeed(result.ok)
            : Exit.fail(failure(entry.request.call.task, result.failed))
        )
      })
    ),
    Effect.catch((error) =>
      Effect.sync(() => {
        for (const entry of entries) entry.completeUnsafe(Exit.fail(error))
      })
    )
  )

/**
 * The NLP calls made at the same time (the items of a batch capture reach each stage together)
 * are answered together. Few characters in all: here, at once. More: in one message to the NLP
 * thread, every call answered when all are, so the batch's items go on in step
 * (the embedder then embeds them together too). A batch of 100 short captures used to read its
 * entities on the main thread in one stretch of 1.1–1.9 s (profiled during a burst of
 * `/v1/batch`), while `/health`, every search and every database reply waited behind it.
 */
const resolver = RequestResolver.make<NlpCall>((entries) => {
  const length = (entry: Request.Entry<NlpCall>) => (entry.request.call.args[0] as string).length
  const chars = entries.reduce((sum, entry) => sum + length(entry), 0)
  if (chars < offloadChars)
    return Effect.sync(() =>
      entries.forEach((entry) => {
        let exit: Exit.Exit<unknown, PluginFailure>
        try {
          exit = Exit.succeed(entry.request.here(...entry.request.call.args))
        } catch (cause) {
          exit = Exit.fail(failure(entry.request.call.task, cause))
        }
        entry.completeUnsafe(exit)
      })
    )
  return onWorker(entries)
})

/**
 * Runs NLP task `task` (the function `here`, which NlpWorker.ts names `task`) over a text, its
 * first argument: here or in a worker, with the calls made at the same time (see `resolver`).
 * Either way the result is the same function's; a worker that fails is a plugin failure.
 */
export const runNlp = <A extends ReadonlyArray<unknown>, R>(
  task: TaskName,
  here: (...args: A) => R,
  ...args: A
): Effect.Effect<R, PluginFailure> =>
  Effect.request(
    NlpCall({ call: { task, args }, here: here as (...args: ReadonlyArray<unknown>) => unknown }),
    resolver
  ) as Effect.Effect<R, PluginFailure>
