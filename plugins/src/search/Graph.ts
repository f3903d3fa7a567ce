import { availableParallelism } from "node:os"
import { type GraphConfig, GraphThread } from "./GraphThread.js"

const cores = Math.max(1, availableParallelism())

/** One vector graph held by the graph thread, keyed by numbers (a set's slots as it keys them). */
export class Graph {
  private readonly thread = GraphThread.shared()
  private readonly id = this.thread.newId()
  private held = 0
  /**
   * Where an add's vectors are put for the graph thread to read: shared, so an add allocates
   * nothing. Copied in messages instead, 100,000 vectors left the thread's heap 60–110 MB of
   * garbage it had no reason to collect (bench:memory's index part).
   */
  private readonly staging: Float32Array

  constructor(private readonly config: GraphConfig) {
    const shared = new SharedArrayBuffer(config.batch * config.dims * 4)
    this.staging = new Float32Array(shared)
    this.thread.post({ op: "create", id: this.id, config, staging: shared })
  }

  /** Bytes of its staging buffer (the graph itself is counted by its holder). */
  get stagingBytes(): number {
    return this.staging.byteLength
  }

  /** Where the next add's `count` vectors go, row after row (see `add`). */
  stage(count: number): Float32Array {
    if (count > this.config.batch)
      throw new Error(`an add of ${count} vectors, more than ${this.config.batch}`)
    return this.staging.subarray(0, count * this.config.dims)
  }

  /** Keys it holds, once the adds asked for are done. */
  size(): number {
    return this.held
  }

  /** Whether its thread ended: it answers no more. */
  get ended(): boolean {
    return this.thread.ended
  }

  /** Whether a request now would wait behind a save or a load (of this graph or another). */
  get busy(): boolean {
    return this.thread.busy
  }

  /** Resolves once every request posted to the graph thread is done. */
  settled(): Promise<void> {
    return this.thread.settled()
  }

  /** Blocks until every request posted to the graph thread is done. */
  settle(): void {
    this.thread.settle()
  }

  /** Whether request `seq` (an add's) is done. */
  done(seq: number): boolean {
    return this.thread.done(seq)
  }

  /** How long the graph thread's last add took, in ms. */
  get addTook(): number {
    return this.thread.addTook
  }

  /**
   * Adds the vectors staged (`stage(keys.length)`) under `keys`, on every core, and goes on; the
   * request's number (see `done`). Nothing may be staged again until it is done. A search asked
   * for meanwhile waits for it.
   */
  add(keys: BigUint64Array): number {
    this.held += keys.length
    return this.thread.post({ op: "add", id: this.id, keys, threads: cores })
  }

  /** Removes keys it holds. */
  remove(keys: BigUint64Array): void {
    this.thread.post({ op: "remove", id: this.id, keys })
    this.held -= keys.length
  }

  /** The keys of the `k` vectors nearest `query`, about (fewer when it holds fewer). */
  search(query: Float32Array, k: number): BigUint64Array {
    return this.thread.call({ op: "search", id: this.id, query, k }) as BigUint64Array
  }

  /** Writes it to `path` (usearch's format), as it is now. */
  async save(path: string): Promise<void> {
    await this.thread.request({ op: "save", id: this.id, path })
  }

  /** Replaces it with the graph saved at `path`, less the `stale` keys; throws if the file does not load. */
  async load(path: string, stale: BigUint64Array): Promise<void> {
    this.held = (await this.thread.request({
      op: "load",
      id: this.id,
      path,
      config: this.config,
      stale
    })) as number
  }

  /** Lets go of it. */
  close(): void {
    if (!this.thread.ended) this.thread.post({ op: "drop", id: this.id })
  }
}
