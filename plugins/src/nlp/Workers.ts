import { availableParallelism } from "node:os"
import { PluginFailure } from "@umo/core"
import { Effect } from "effect"
import type { Piscina } from "piscina"
import { workerPool } from "../support/WorkerPool.js"

/**
 * The tasks an NLP worker runs, by name; NlpWorker.ts maps each to its finder. Named here, not
 * taken from NlpWorker.ts, so that the finders (which call `runNlp`) and the worker (which calls
 * the finders) do not import each other through this file.
 */
export type TaskName = "entities" | "triples" | "enrichment"

/** What a worker is sent: a task and its arguments (plain data: a worker's arguments are copied). */
export interface TaskMessage {
  readonly task: TaskName
  readonly args: ReadonlyArray<unknown>
}

/**
 * Texts this long or longer are read in a worker thread; shorter ones on the calling thread,
 * where they take a few milliseconds and a hop to a worker would cost about as much.
 */
export const offloadChars = 2_000

let pool: Piscina | undefined
/**
 * One pool per process, a thread per core, made on first use: NLP over a long capture takes
 * seconds, and on the event loop it would hold up every other request, `/health` included.
 * Idle threads exit after a while and never keep the process alive.
 */
const workers = () => {
  pool ??= workerPool(import.meta.url, "NlpWorker", {
    maxThreads: Math.max(1, availableParallelism()),
    idleTimeout: 30_000
  })
  return pool
}

/**
 * Runs NLP task `task` (the function `here`, which NlpWorker.ts names `task`) over a text, its
 * first argument: in a worker when the text is long, on this thread otherwise. Either way the
 * result is the same function's; a worker that fails is a plugin failure.
 */
export const runNlp = <A extends ReadonlyArray<unknown>, R>(
  task: TaskName,
  here: (...args: A) => R,
  ...args: A
): Effect.Effect<R, PluginFailure> => {
  if ((args[0] as string).length < offloadChars) return Effect.sync(() => here(...args))
  const message: TaskMessage = { task, args }
  return Effect.tryPromise({
    try: (signal) => workers().run(message, { signal }) as Promise<R>,
    catch: (cause) =>
      new PluginFailure({ reason: "Failed", message: `NLP worker failed on ${task}: ${String(cause)}` })
  })
}
