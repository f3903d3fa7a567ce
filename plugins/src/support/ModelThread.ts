import { Effect } from "effect"
import type { Piscina } from "piscina"
import { workerPool } from "./WorkerPool.js"

/**
 * One thread that runs a local model (onnxruntime-node runs a model synchronously on the thread
 * that calls it, which must not be the event loop): the worker module `name` beside `base`,
 * started on the first call, not with the layer, so a process that never asks pays nothing.
 * Closing with the scope waits for the calls under way: a thread ended while onnxruntime loads or
 * runs a model takes the process down with it (SIGABRT).
 */
export const modelThread = <Task, Out>(base: string, name: string, workerData: unknown) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => ({ pool: undefined as Piscina | undefined, running: new Set<Promise<unknown>>() })),
      ({ pool, running }) =>
        Effect.promise(async () => {
          await Promise.allSettled(running)
          await pool?.destroy()
        })
    ),
    (threads) =>
      (task: Task, signal: AbortSignal): Promise<Out> => {
        threads.pool ??= workerPool(base, name, { minThreads: 1, maxThreads: 1, workerData })
        const call = threads.pool.run(task, { signal }) as Promise<Out>
        threads.running.add(call)
        const done = () => threads.running.delete(call)
        call.then(done, done)
        return call
      }
  )
