import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import { workerScript } from "../support/WorkerPool.js"

/** How a graph is made (usearch's HNSW, cosine, int8). */
export interface GraphConfig {
  readonly dims: number
  /** The most vectors one add takes (the size of the graph's staging buffer). */
  readonly batch: number
  readonly connectivity: number
  readonly expansionAdd: number
  readonly expansionSearch: number
}

/** A request to the graph thread: `blocking` ones are waited for, `answered` ones resolve a promise. */
export type GraphRequest = {
  readonly seq: number
  readonly blocking: boolean
  readonly answered: boolean
} & (
  | {
      readonly op: "create"
      readonly id: number
      readonly config: GraphConfig
      readonly staging: SharedArrayBuffer
    }
  | {
      readonly op: "add"
      readonly id: number
      readonly keys: BigUint64Array
      readonly threads: number
    }
  | { readonly op: "remove"; readonly id: number; readonly keys: BigUint64Array }
  | { readonly op: "search"; readonly id: number; readonly query: Float32Array; readonly k: number }
  | { readonly op: "save"; readonly id: number; readonly path: string }
  | {
      readonly op: "load"
      readonly id: number
      readonly path: string
      readonly config: GraphConfig
      readonly stale: BigUint64Array
    }
  | { readonly op: "drop"; readonly id: number }
)

type Request = GraphRequest extends infer R
  ? R extends GraphRequest
    ? Omit<R, "seq" | "blocking" | "answered">
    : never
  : never

interface Answer {
  readonly seq: number
  readonly value?: unknown
  readonly error?: string
}

/** A blocking request waits this long at most: a thread that hangs or died fails the search, which the database then serves. */
const blockingTimeoutMs = 30_000

/** The shared cells: the number of the last request done, and how long the last add took (µs). */
export const doneCell = 0
export const addTookCell = 1

/**
 * The thread that holds every vector graph of the process. usearch's graph calls are synchronous,
 * and saving or loading a graph of 1,000,000 chunks takes seconds, adding a batch of 64 chunks to
 * a graph of 100,000 some 40 ms: on the main thread each stalls every request (5–9 s a snapshot
 * at 1M). Here requests run in the order they were posted, and the thread sets a shared cell to
 * the number of each request it has done. The main thread waits only for a search, by blocking on
 * that cell (`Atomics.wait`: a fraction of a millisecond beside the search itself and what is
 * ahead of it, one batch of adds at most); adds, saves and loads go on while it works. While a
 * save or a load runs (`busy`), no graph is asked anything that would wait behind it: searches
 * scan or read the database, and building pauses. A graph is saved as it was when the save was
 * asked for.
 */
export class GraphThread {
  private static current: GraphThread | undefined

  /** The process's graph thread, started on first use (about 45 ms, once). */
  static shared(): GraphThread {
    if (GraphThread.current === undefined || GraphThread.current.failed !== undefined)
      GraphThread.current = new GraphThread()
    return GraphThread.current
  }

  private readonly worker: Worker
  private readonly cells = new Int32Array(new SharedArrayBuffer(8))
  private readonly replies: MessagePort
  private seq = 0
  private ids = 0
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >()
  /** The last save or load asked for. */
  private longUntil = 0
  private longPending = false
  /** Promises waiting on the thread: while any does, the thread keeps the process alive. */
  private holders = 0
  private failed: Error | undefined

  private constructor() {
    const channel = new MessageChannel()
    this.replies = channel.port1
    const script = workerScript(import.meta.url, "GraphWorker")
    this.worker = new Worker(script.filename, {
      ...script.options,
      workerData: { cells: this.cells, replies: channel.port2 },
      transferList: [channel.port2]
    })
    this.worker.on("message", (answer: Answer) => {
      const waiter = this.waiting.get(answer.seq)
      // A request nobody waits for that failed (an add, a removal) leaves a graph that differs
      // from what its set believes it holds: the thread is given up, and its graphs with it.
      if (waiter === undefined) {
        if (answer.error !== undefined)
          this.fail(new Error(`the graph thread failed a request: ${answer.error}`))
        return
      }
      this.waiting.delete(answer.seq)
      if (answer.error !== undefined) waiter.reject(new Error(answer.error))
      else waiter.resolve(answer.value)
      this.release()
    })
    this.worker.on("error", (error) => this.fail(error))
    this.worker.on("exit", (code) => this.fail(new Error(`the graph thread ended (exit code ${code})`)))
    // Graphs live as long as their sets; the thread keeps the process alive only while a promise
    // waits on it (a save, a load, a build's pause), which would otherwise never settle.
    this.worker.unref()
    this.replies.unref()
  }

  /**
   * Gives the thread up: what waits on it fails, every graph in it answers no more (their sets
   * throw, and the indexes holding them are dropped and loaded again, into a new thread).
   */
  private fail(error: Error): void {
    if (this.failed !== undefined) return
    this.failed = error
    for (const waiter of this.waiting.values()) waiter.reject(error)
    this.holders -= this.waiting.size
    this.waiting.clear()
    void this.worker.terminate()
  }

  /** Whether the thread ended (its graphs with it). */
  get ended(): boolean {
    return this.failed !== undefined
  }

  /** Whether request `seq` is done (numbers wrap around: they are compared by difference). */
  done(seq: number): boolean {
    return ((Atomics.load(this.cells, doneCell) - seq) | 0) >= 0
  }

  /** Whether a save or a load is under way: a blocking request would wait behind it. */
  get busy(): boolean {
    // Forgotten once done: compared by difference, an old number would seem ahead again after 2^31 requests.
    if (this.longPending && this.done(this.longUntil)) this.longPending = false
    return this.longPending
  }

  /** How long the thread's last add took, in ms. */
  get addTook(): number {
    return Atomics.load(this.cells, addTookCell) / 1_000
  }

  /** Resolves once request `seq` (by default, every request posted) is done, without blocking this thread. */
  async settled(seq: number = this.seq): Promise<void> {
    if (this.done(seq)) return
    this.hold()
    try {
      while (!this.done(seq)) {
        if (this.failed !== undefined) throw this.failed
        const waited = Atomics.waitAsync(this.cells, doneCell, Atomics.load(this.cells, doneCell), 1_000)
        if (waited.async) await waited.value
      }
    } finally {
      this.release()
    }
  }

  private hold(): void {
    if (this.holders++ === 0) this.worker.ref()
  }

  private release(): void {
    if (--this.holders === 0) this.worker.unref()
  }

  /** Blocks until every request posted is done (tests and benchmarks build graphs whole so). */
  settle(): void {
    this.wait(this.seq, "request")
  }

  /** A number for a new graph. */
  newId(): number {
    return ++this.ids
  }

  private send(request: Request, blocking: boolean, answered: boolean): number {
    if (this.failed !== undefined) throw this.failed
    this.seq = (this.seq + 1) | 0
    this.worker.postMessage({ ...request, seq: this.seq, blocking, answered })
    return this.seq
  }

  private wait(seq: number, what: string): void {
    const deadline = performance.now() + blockingTimeoutMs
    for (;;) {
      const last = Atomics.load(this.cells, doneCell)
      if (((last - seq) | 0) >= 0) return
      const left = deadline - performance.now()
      if (this.failed !== undefined) throw this.failed
      if (left <= 0) {
        // A thread that does not answer is given up (`exit` cannot arrive while this thread waits here).
        this.fail(new Error(`the graph thread did not answer a ${what} in ${blockingTimeoutMs} ms`))
        throw this.failed
      }
      Atomics.wait(this.cells, doneCell, last, left)
    }
  }

  /** Posts a request and goes on: its effect is seen by every later request. Its number. */
  post(request: Request): number {
    return this.send(request, false, false)
  }

  /** Posts a request and waits for its answer. */
  call(request: Request): unknown {
    const seq = this.send(request, true, false)
    this.wait(seq, request.op)
    for (;;) {
      const received = receiveMessageOnPort(this.replies)
      if (received === undefined) throw new Error(`the graph thread's answer to a ${request.op} is missing`)
      const answer = received.message as Answer
      if (answer.seq !== seq) continue
      if (answer.error !== undefined) throw new Error(answer.error)
      return answer.value
    }
  }

  /** Posts a request whose answer comes later (a save, a load): `busy` until it is done. */
  request(request: Request): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const seq = this.send(request, false, true)
      this.longUntil = seq
      this.longPending = true
      this.waiting.set(seq, { resolve, reject })
      this.hold()
    })
  }
}
