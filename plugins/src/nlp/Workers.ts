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
export type TaskName = "normalized" | "entities" | "triples" | "enrichment" | "facts"

/** What a worker is sent: a task and its arguments (plain data: a worker's arguments are copied). */
export interface TaskMessage {
  readonly task: TaskName
  readonly args: ReadonlyArray<unknown>
}

/**
 * Texts this long or longer are read in a worker thread; shorter ones on the calling thread,
 * where they take a few milliseconds and a hop to a worker would cost about as much (unless this
 * turn of the event loop has spent its budget: see `inlineBudgetMs`).
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
 * Main-thread time short texts' NLP may take in one turn of the event loop; past it, the turn's
 * next texts go to a worker. One short text takes a few milliseconds here, but a batch of 100 took
 * 1.1–1.9 s in one stretch (profiled during a burst of `/v1/batch` captures), and `/health`, every
 * search and every database reply waited behind it. A single capture stays on this thread.
 */
export const inlineBudgetMs = 15

let spentThisTurn = 0
let turnEnding = false
/** How many short texts went to a worker because this turn's budget was spent (for tests). */
export let offloadedShort = 0

const inline = <R>(here: () => R): R => {
  const started = performance.now()
  try {
    return here()
  } finally {
    spentThisTurn += performance.now() - started
    if (!turnEnding) {
      turnEnding = true
      // Runs once the event loop has turned: the stretch of work that spent the budget is over.
      setImmediate(() => {
        spentThisTurn = 0
        turnEnding = false
      })
    }
  }
}

/**
 * Runs NLP task `task` (the function `here`, which NlpWorker.ts names `task`) over a text, its
 * first argument: in a worker when the text is long or this turn of the event loop has already
 * spent `inlineBudgetMs` on NLP, on this thread otherwise. Either way the result is the same
 * function's; a worker that fails is a plugin failure.
 */
export const runNlp = <A extends ReadonlyArray<unknown>, R>(
  task: TaskName,
  here: (...args: A) => R,
  ...args: A
): Effect.Effect<R, PluginFailure> =>
  Effect.suspend(() => {
    const short = (args[0] as string).length < offloadChars
    if (short && spentThisTurn < inlineBudgetMs) return Effect.sync(() => inline(() => here(...args)))
    if (short) offloadedShort += 1
    const message: TaskMessage = { task, args }
    return Effect.tryPromise({
      try: (signal) => workers().run(message, { signal }) as Promise<R>,
      catch: (cause) =>
        new PluginFailure({ reason: "Failed", message: `NLP worker failed on ${task}: ${String(cause)}` })
    })
  })
