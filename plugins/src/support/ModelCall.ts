import type { Piscina } from "piscina"

/**
 * What a model's worker is given beside its task: a flag the calling thread raises once its caller
 * has given up (a time-out, a request whose client left). The worker reads it before each unit of
 * work (a pair, a batch) and stops early; its answer is then dropped.
 */
export interface Cancellable {
  readonly cancelled?: Int32Array
}

/** Whether the caller of this call has given up (see {@link Cancellable}). */
export const cancelled = (task: Cancellable): boolean =>
  task.cancelled !== undefined && Atomics.load(task.cancelled, 0) !== 0

/** A pool of threads running a local model, whose calls never end a thread mid-run. */
export interface ModelPool {
  /** Runs `task`; rejects at once when `signal` aborts, while the thread finishes or stops early. */
  readonly run: <Task extends object, Out>(task: Task, signal?: AbortSignal) => Promise<Out>
  /** Refuses new calls, waits for those under way (given up or not), then ends the threads. */
  readonly close: () => Promise<void>
}

/**
 * Piscina ends the thread of an aborted call that is under way, and so does `destroy`; a thread
 * ended while onnxruntime loads or runs a model takes the whole process down ("terminate called
 * after throwing an instance of 'Napi::Error'", SIGABRT): a capture whose judge timed out, or a
 * search whose client left during reranking, would end the server. So a call's thread is told
 * through a flag shared with it instead, and stops before its next unit of work (a call still
 * queued stops before it starts), and closing waits for every call under way.
 */
export const modelPool = (pool: Piscina): ModelPool => {
  const underway = new Set<Promise<unknown>>()
  let closing = false
  const run = <Task extends object, Out>(task: Task, signal?: AbortSignal): Promise<Out> => {
    if (closing) return Promise.reject(new Error("the model's threads are closing"))
    if (signal?.aborted) return Promise.reject(signal.reason)
    const flag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
    const call = pool.run(signal === undefined ? task : { ...task, cancelled: flag }) as Promise<Out>
    underway.add(call)
    const settled = () => underway.delete(call)
    call.then(settled, settled)
    if (signal === undefined) return call
    return new Promise<Out>((resolve, reject) => {
      const abort = () => {
        Atomics.store(flag, 0, 1)
        reject(signal.reason)
      }
      signal.addEventListener("abort", abort, { once: true })
      const stopListening = () => signal.removeEventListener("abort", abort)
      call.then(
        (out) => {
          stopListening()
          resolve(out)
        },
        (cause) => {
          stopListening()
          reject(cause)
        }
      )
    })
  }
  const close = async () => {
    closing = true
    while (underway.size > 0) await Promise.allSettled([...underway])
    await pool.destroy()
  }
  return { run, close }
}
