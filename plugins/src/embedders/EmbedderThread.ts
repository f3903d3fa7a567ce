import { EmbedderError, type EmbedOptions } from "@umo/core"
import { Effect } from "effect"
import { type Cancellable, modelPool } from "../support/ModelCall.js"
import { urgentFirst } from "../support/UrgentFirst.js"
import { workerPool } from "../support/WorkerPool.js"

/** What an embedder's worker module is given to embed: no texts is a warm-up call (the model is loaded). */
export interface EmbedTask extends Cancellable {
  readonly texts: ReadonlyArray<string>
}

/** An embedding model running on a thread of its own (see `embedderThread`). */
export interface EmbedderThread {
  /** Succeeds once the model has loaded on its thread; fails, every time, when it could not. */
  readonly loaded: Effect.Effect<void, EmbedderError>
  /** The texts' vectors, in order, once the model has loaded; urgent ones before those waiting. */
  readonly embed: (
    texts: ReadonlyArray<string>,
    options?: EmbedOptions
  ) => Effect.Effect<Array<Array<number>>, EmbedderError>
}

/**
 * Runs the embedder worker module `name` (beside `base`, the caller's `import.meta.url`; its
 * default export answers an `EmbedTask`) on one thread that lives as long as the scope. A model's
 * inference is synchronous, CPU-bound work of 10 ms to over a second: on the event loop it would
 * hold up every other request, `/health` and database time-outs included. The thread loads its
 * model at once, in the background; calls wait for it. One thread: the model's runtime already
 * spreads a call over the cores, and concurrent calls queue for it, here, where an urgent call (a
 * search's query) goes before the calls of background work (`urgentFirst`).
 */
export const embedderThread = (base: string, name: string, model: string, workerData: unknown) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => modelPool(workerPool(base, name, { minThreads: 1, maxThreads: 1, workerData }))),
      (pool) => Effect.promise(() => pool.close())
    )
    const queue = urgentFirst()
    const run = (task: EmbedTask, signal?: AbortSignal, urgent = false) =>
      queue.run(() => pool.run<EmbedTask, Array<Array<number>>>(task, signal), urgent, signal)
    const loading = run({ texts: [] })
    loading.catch(() => undefined)
    const loaded = Effect.asVoid(
      Effect.tryPromise({
        try: () => loading,
        catch: (cause) =>
          new EmbedderError({ reason: "ModelUnavailable", model, detail: String(cause), cause })
      })
    )
    const embed = (texts: ReadonlyArray<string>, options?: EmbedOptions) =>
      Effect.andThen(
        loaded,
        Effect.tryPromise({
          try: (signal) => run({ texts }, signal, options?.urgent === true),
          catch: (cause) =>
            new EmbedderError({ reason: "InferenceFailed", model, detail: String(cause), cause })
        })
      )
    return { loaded, embed } satisfies EmbedderThread
  })
