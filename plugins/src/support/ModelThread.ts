import { Config, Effect, Schema } from "effect"
import type { Piscina } from "piscina"
import { type ModelPool, modelPool } from "./ModelCall.js"
import { workerPool } from "./WorkerPool.js"

/** What `UMO_MODEL_IDLE_SECONDS` is when unset. */
export const defaultIdleSeconds = 300

/**
 * How long a rarely used model (the reranker, the update judge) stays loaded after its last call:
 * `UMO_MODEL_IDLE_SECONDS`, default 300; 0 keeps it loaded for good. A loaded cross-encoder holds
 * 100–200 MB that a server idle between asks needs not hold; loading it again takes ~0.3 s.
 */
export const modelIdleSeconds = Config.schema(
  Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)),
  "UMO_MODEL_IDLE_SECONDS"
).pipe(Config.withDefault(defaultIdleSeconds))

/** A local model on a thread of its own (see `modelThread`). */
export interface ModelThread<Task, Out> {
  readonly run: (task: Task, signal: AbortSignal) => Promise<Out>
  /** Whether the model's thread is up (it has been called, and not been idle since for too long). */
  readonly loaded: () => boolean
}

/**
 * One thread that runs a local model (onnxruntime-node runs a model synchronously on the thread
 * that calls it, which must not be the event loop): the worker module `name` beside `base`,
 * started on the first call, not with the layer, so a process that never asks pays nothing, and
 * ended once it has been idle for `idleSeconds` (the next call starts it again, loading the model
 * as the first did). Piscina ends only a thread with no call under way; closing with the scope
 * waits for the calls under way too: a thread ended while onnxruntime loads or runs a model takes
 * the process down with it (SIGABRT), so a caller that gives up never ends it (`modelPool`).
 */
export const modelThread = <Task extends object, Out>(
  base: string,
  name: string,
  workerData: unknown,
  idle: number = defaultIdleSeconds
) =>
  Effect.gen(function* () {
    const threads = yield* Effect.acquireRelease(
      Effect.sync(() => ({
        pool: undefined as Piscina | undefined,
        calls: undefined as ModelPool | undefined
      })),
      ({ calls }) => Effect.promise(async () => calls?.close())
    )
    const run = (task: Task, signal: AbortSignal): Promise<Out> => {
      if (threads.calls === undefined) {
        threads.pool = workerPool(base, name, {
          minThreads: idle === 0 ? 1 : 0,
          maxThreads: 1,
          idleTimeout: idle === 0 ? Number.POSITIVE_INFINITY : idle * 1000,
          workerData
        })
        threads.calls = modelPool(threads.pool)
      }
      return threads.calls.run<Task, Out>(task, signal)
    }
    return { run, loaded: () => (threads.pool?.threads.length ?? 0) > 0 } satisfies ModelThread<Task, Out>
  })
