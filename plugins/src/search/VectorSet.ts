import { createHash } from "node:crypto"
import usearch from "usearch"
import { ExactRows } from "./ExactRows.js"
import { Graph } from "./Graph.js"
import { grown } from "./TypedArrays.js"

/** A chunk found near a query: its slot in the set and its cosine similarity to the query. */
export interface NearChunk {
  readonly chunk: number
  readonly similarity: number
}

/**
 * Below this many live chunks a nearest search scans every vector (about a millisecond
 * per 2,000 chunks of 768 dimensions here); at or above it the set keeps an HNSW graph.
 */
export const graphFrom = 4_000

/**
 * What a process holds for its graphs once it has any, whatever their number: the graphs' library
 * (8.4 MB with one graph of 1,024 chunks, 0.6 MB more for each further one: bench:memory's graph
 * probes) and the graph thread's own heap and stacks (about 12 MB more: the index part measured
 * 74 MB at 10,000 memories with the graphs in that thread, against 62 estimated without it).
 */
export const graphWorkingBytes = 20 * 2 ** 20

const graphConfig = (dims: number) => ({
  dims,
  batch: batchSizes.most,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 64
})

/**
 * A batch of chunks added to the graph is sized to take about this long in the graph thread: a
 * search asked for meanwhile waits for it. (64 chunks took 40 ms into a graph of 100,000.)
 */
const batchMs = 8
const batchSizes = { least: 4, first: 64, most: 256 } as const

/** Up to this many chunks, a scan ranks each one here; beyond, usearch's exact int8 search ranks them. */
const scannedHere = 256

/** A scanned subset is copied apart this many chunks at a time (6 MB at 768 dimensions). */
const gatheredAtMost = 8_192

/** Chunks not yet in the graph that a graph search still finds by scanning them exactly. */
const pendingScanned = 2_000

/**
 * How many chunks ranked by their int8 copies are then scored exactly to keep the best `k`: the
 * int8 similarities are within about 0.002 of the exact ones and may misorder near neighbours.
 */
const rankedMargin = (k: number) => k + Math.max(16, k >> 1)

/** Rounds a vector to int8, largest component ±127; the scale that multiplies it back. */
const quantize = (vector: ArrayLike<number>, into: Int8Array): number => {
  let largest = 0
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i]!))
  const scale = largest === 0 ? 0 : largest / 127
  for (let i = 0; i < vector.length; i++) into[i] = scale === 0 ? 0 : Math.round(vector[i]! / scale)
  return scale
}

/** `query · row` in double precision, four sums at once (one running sum makes each step wait for the last). */
const dot = (query: Float32Array, row: ArrayLike<number>, base: number, dims: number): number => {
  let d0 = 0
  let d1 = 0
  let d2 = 0
  let d3 = 0
  let i = 0
  for (; i + 3 < dims; i += 4) {
    d0 += query[i]! * row[base + i]!
    d1 += query[i + 1]! * row[base + i + 1]!
    d2 += query[i + 2]! * row[base + i + 2]!
    d3 += query[i + 3]! * row[base + i + 3]!
  }
  for (; i < dims; i++) d0 += query[i]! * row[base + i]!
  return d0 + d1 + (d2 + d3)
}

/**
 * The chunk vectors of one account, each with the memory slot it belongs to. In memory they are
 * int8 with a scale per vector, a quarter of float32's 3 KB a chunk at 768 dimensions; the
 * float32 vectors (as pgvector keeps them) are in a file (`ExactRows`). Candidates are ranked by
 * the int8 copies — scanned here, by usearch's exact int8 search, or through the HNSW graph — and
 * the best few are scored exactly from the file: `1 - cosine distance`, in double precision, the
 * similarity the database's search gives.
 */
export class VectorSet {
  private data: Int8Array
  /** Each row's scale back to its float values. */
  private scales: Float32Array
  /** Each chunk's squared norm. */
  private norms: Float64Array
  private owners: Int32Array
  private used = 0
  private live = 0
  /** Held by the process's graph thread (`GraphThread`). */
  private graph: Graph | undefined
  /**
   * Each slot's key in the graph (-1 while it holds none) and each key's slot: a graph read from a
   * snapshot keeps the keys it was saved with, which need not be the slots of this load.
   */
  private keyOfSlot: Int32Array
  private slotOfKey = new Int32Array(0)
  private nextKey = 0
  /** Chunks added since the graph was made that it does not hold yet (built in batches). */
  private pending: Array<number> = []
  /** The batch the graph thread is adding (request `addingRequest`): scanned too until it is in. */
  private adding: Array<number> = []
  private addingRequest = 0
  private batchSize: number = batchSizes.first
  /** Whether `close` was called (an adoption that resolves after it lets its graph go). */
  private closed = false
  /** Where `scan` copies a subset of the rows (grown as needed, to `gatheredAtMost` rows at most). */
  private scratch = new Int8Array(0)
  private readonly exact: ExactRows
  /** One float row read from the file. */
  private readonly row: Float32Array

  constructor(
    readonly dims: number,
    capacity = 1_024,
    rowsDir?: string
  ) {
    this.data = new Int8Array(capacity * dims)
    this.scales = new Float32Array(capacity)
    this.norms = new Float64Array(capacity)
    this.owners = new Int32Array(capacity).fill(-1)
    this.keyOfSlot = new Int32Array(capacity).fill(-1)
    this.exact = new ExactRows(dims, rowsDir)
    this.row = new Float32Array(dims)
  }

  /** Live chunks. */
  get size(): number {
    return this.live
  }

  /**
   * Bytes this set holds in memory, about: its rows (reserved ahead, as they grow by doubling) and
   * the graph's, `dims + 232` a chunk (its int8 copy of the vector, its links, 16 neighbours each
   * way, and their bookkeeping). Measured, graphs of 768 dimensions alone in a process: 1,024 to
   * 100,000 chunks cost 8 MB once (see `graphWorkingBytes`) and then 1,000 to 1,050 bytes a chunk.
   */
  get bytes(): number {
    const rows =
      this.data.byteLength +
      this.scales.byteLength +
      this.norms.byteLength +
      this.owners.byteLength +
      this.keyOfSlot.byteLength +
      this.slotOfKey.byteLength
    return (
      rows +
      this.scratch.byteLength +
      this.exact.bytes +
      (this.graph === undefined ? 0 : this.graph.stagingBytes + this.graph.size() * (this.dims + 232))
    )
  }

  /** Whether it keeps a graph. */
  get graphed(): boolean {
    return this.graph !== undefined
  }

  /** Whether `buildStep` has work: a graph to make, or chunks it does not hold yet. */
  get graphBehind(): boolean {
    return this.graph === undefined ? this.live >= graphFrom : this.pending.length + this.adding.length > 0
  }

  /**
   * Whether `nearest` can answer: the graph exists, lacks at most `pendingScanned` chunks (those it
   * scans), and the graph thread is not saving or loading a graph (a search would wait for it).
   * While a large set's graph is being built, the set is scanned.
   */
  get graphReady(): boolean {
    return (
      this.graph !== undefined &&
      !this.graph.busy &&
      this.pending.length + this.adding.length <= pendingScanned
    )
  }

  /** Resolves once the graph thread has done what it was asked (`buildStep` has nothing to add meanwhile). */
  graphSettled(): Promise<void> {
    return this.graph?.settled() ?? Promise.resolve()
  }

  /**
   * Builds the graph whole, blocking this thread until the graph thread is done: for a tool that
   * has nothing else to do (a benchmark, a test). A server builds with `buildStep`.
   */
  buildAll(): void {
    while (this.buildStep()) this.graph?.settle()
  }

  /** Stores a memory's chunk vectors; their slots, in order. */
  add(owner: number, vectors: ReadonlyArray<ArrayLike<number>>): Array<number> {
    const slots: Array<number> = []
    for (const vector of vectors) {
      if (vector.length !== this.dims)
        throw new Error(`a vector of ${vector.length} dimensions in a set of ${this.dims}`)
      this.reserve(this.used + 1)
      const slot = this.used++
      this.exact.write(slot, vector)
      this.scales[slot] = quantize(vector, this.data.subarray(slot * this.dims, (slot + 1) * this.dims))
      let norm = 0
      for (let i = 0; i < this.dims; i++) norm += vector[i]! * vector[i]!
      this.norms[slot] = norm
      this.owners[slot] = owner
      this.live++
      slots.push(slot)
      if (this.graph !== undefined || this.live >= graphFrom) this.pending.push(slot)
    }
    return slots
  }

  /** Forgets chunks (their slots are not reused). */
  remove(slots: ReadonlyArray<number>): void {
    const keys: Array<bigint> = []
    for (const slot of slots) {
      if (this.owners[slot] === -1) continue
      this.owners[slot] = -1
      this.live--
      const key = this.keyOfSlot[slot]!
      if (key !== -1) {
        keys.push(BigInt(key))
        this.keyOfSlot[slot] = -1
        this.slotOfKey[key] = -1
      }
    }
    if (this.graph !== undefined && keys.length > 0) this.graph.remove(BigUint64Array.from(keys))
  }

  /** The memory slot a chunk belongs to, or -1 once it is removed. */
  owner(slot: number): number {
    return this.owners[slot] ?? -1
  }

  /** A chunk's float32 vector (a copy). */
  vector(slot: number): Float32Array {
    return this.exact.read(slot, new Float32Array(this.dims))
  }

  /** Cosine similarity of a chunk to a query whose squared norm is `queryNorm`, from its float32 vector. */
  similarity(query: Float32Array, queryNorm: number, slot: number): number {
    const norms = queryNorm * this.norms[slot]!
    return norms === 0 ? 0 : dot(query, this.exact.read(slot, this.row), 0, this.dims) / Math.sqrt(norms)
  }

  /** The same from the chunk's int8 copy: for ranking only. */
  private rough(query: Float32Array, queryNorm: number, slot: number): number {
    const norms = queryNorm * this.norms[slot]!
    return norms === 0
      ? 0
      : (dot(query, this.data, slot * this.dims, this.dims) * this.scales[slot]!) / Math.sqrt(norms)
  }

  /** The live chunks among `chunks` with the best int8 similarities, `rankedMargin(k)` at most, scored exactly. */
  private rescored(
    query: Float32Array,
    queryNorm: number,
    k: number,
    chunks: Iterable<number>
  ): Array<NearChunk> {
    const live: Array<{ chunk: number; rough: number }> = []
    for (const chunk of chunks) if (this.owners[chunk] !== -1) live.push({ chunk, rough: 0 })
    const wanted = rankedMargin(k)
    if (live.length > wanted) {
      for (const c of live) c.rough = this.rough(query, queryNorm, c.chunk)
      live.sort((a, b) => b.rough - a.rough)
      live.length = wanted
    }
    return live.map(({ chunk }) => ({ chunk, similarity: this.similarity(query, queryNorm, chunk) }))
  }

  /**
   * Adds up to one batch of the chunks the graph lacks, making the graph once the set is large
   * enough; whether more remain. Called repeatedly between other work, so no call blocks long.
   * The graph thread adds the batch while this thread goes on; the next call adds nothing until it
   * is done (`graphSettled`), nor while the graph thread saves or loads a graph.
   */
  buildStep(): boolean {
    this.alive()
    if (this.graph?.busy === true) return true
    if (this.graph !== undefined && this.adding.length > 0) {
      if (!this.graph.done(this.addingRequest)) return true
      this.adding = []
      // The next batch sized from how long this one took (at most twice or half as many).
      const scale = Math.min(2, Math.max(0.5, batchMs / Math.max(0.01, this.graph.addTook)))
      this.batchSize = Math.min(
        batchSizes.most,
        Math.max(batchSizes.least, Math.round(this.batchSize * scale))
      )
    }
    if (this.graph === undefined) {
      if (this.live < graphFrom) return false
      this.graph = new Graph(graphConfig(this.dims))
      this.pending = []
      for (let slot = 0; slot < this.used; slot++) if (this.owners[slot] !== -1) this.pending.push(slot)
    }
    const batch = this.pending.splice(0, this.batchSize).filter((slot) => this.owners[slot] !== -1)
    if (batch.length > 0) {
      const vectors = this.graph.stage(batch.length)
      batch.forEach((slot, i) => {
        this.exact.read(slot, vectors.subarray(i * this.dims, (i + 1) * this.dims))
      })
      // On every core, in the graph thread: a load of 100,000 memories spends most of its time
      // here (80 s on one core).
      this.addingRequest = this.graph.add(BigUint64Array.from(batch, (slot) => BigInt(this.keyed(slot))))
      this.adding = batch
    }
    return this.pending.length + this.adding.length > 0
  }

  /** Gives a slot the next key of the graph. */
  private keyed(slot: number): number {
    const key = this.nextKey++
    if (key >= this.slotOfKey.length) {
      const slots = new Int32Array(Math.max(1_024, key * 2)).fill(-1)
      slots.set(this.slotOfKey)
      this.slotOfKey = slots
    }
    this.slotOfKey[key] = slot
    this.keyOfSlot[slot] = key
    return key
  }

  /**
   * What identifies a chunk's vector in a snapshot: 8 bytes of the SHA-256 of its int8 copy and
   * scale. A graph entry is adopted only for a chunk whose vector gives the same.
   */
  fingerprint(slot: number): Buffer {
    const hash = createHash("sha256")
    hash.update(this.data.subarray(slot * this.dims, (slot + 1) * this.dims))
    hash.update(new Uint8Array(this.scales.buffer, slot * 4, 4))
    return hash.digest().subarray(0, 8)
  }

  /** Keys given in the graph, removed ones included. */
  get graphKeys(): number {
    return this.nextKey
  }

  /** The slot of each key the graph holds, in key order (-1 for a key it no longer holds). */
  graphSlots(): Int32Array {
    return this.slotOfKey.slice(0, this.nextKey)
  }

  /**
   * Writes the graph, as it is now, to `path` (usearch's format), in the graph thread; false when
   * there is no graph. Resolves once the file is written.
   */
  saveGraph(path: string): Promise<boolean> {
    if (this.graph === undefined) return Promise.resolve(false)
    return this.graph.save(path).then(() => true)
  }

  /**
   * Takes the graph saved at `path` in place of building one: `slots[key]` is the slot now holding
   * the vector the graph saved under `key`, or -1, and those keys are removed from it. The chunks
   * it lacks are added by `buildStep`, as chunks captured after a build are. Only before the set
   * has a graph of its own, and nothing else may change the set until it resolves. A file that
   * does not load leaves the set without a graph, and rejects.
   */
  async adoptGraph(path: string, slots: Int32Array): Promise<void> {
    if (this.graph !== undefined) throw new Error("the set has a graph already")
    const graph = new Graph(graphConfig(this.dims))
    const stale: Array<number> = []
    this.slotOfKey = new Int32Array(Math.max(1_024, slots.length)).fill(-1)
    for (let key = 0; key < slots.length; key++) {
      const slot = slots[key]!
      if (slot === -1 || this.owners[slot] === -1 || this.keyOfSlot[slot] !== -1) stale.push(key)
      else {
        this.slotOfKey[key] = slot
        this.keyOfSlot[slot] = key
      }
    }
    try {
      await graph.load(path, BigUint64Array.from(stale, BigInt))
      if (this.closed) throw new Error("the set was closed while its graph loaded")
    } catch (error) {
      graph.close()
      this.keyOfSlot.fill(-1)
      this.slotOfKey = new Int32Array(0)
      throw error
    }
    this.nextKey = slots.length
    this.graph = graph
    this.pending = []
    for (let slot = 0; slot < this.used; slot++)
      if (this.owners[slot] !== -1 && this.keyOfSlot[slot] === -1) this.pending.push(slot)
  }

  /**
   * The chunks nearest a query by the graph, `k` at most, and the best of the chunks the graph does
   * not hold yet, all scored exactly; unsorted. Only when `graphReady`; otherwise the caller scans.
   */
  nearest(query: Float32Array, queryNorm: number, k: number): Array<NearChunk> {
    this.alive()
    const near: Array<NearChunk> = []
    const graphed = this.graph?.size() ?? 0
    if (this.graph !== undefined && graphed > 0) {
      // At least 64, rescored exactly: the graph's int8 distances misorder near neighbours, the
      // exact ones put the best first again. (A search asks for 4 chunks a memory it wants.)
      for (const key of this.graph.search(query, Math.min(Math.max(k, 64), graphed))) {
        const chunk = this.slotOfKey[Number(key)] ?? -1
        if (chunk !== -1 && this.owners[chunk] !== -1)
          near.push({ chunk, similarity: this.similarity(query, queryNorm, chunk) })
      }
    }
    near.push(...this.rescored(query, queryNorm, k, [...this.adding, ...this.pending]))
    return near
  }

  /**
   * The `k` chunks nearest a query among `chunks` (every chunk the set ever held, when omitted),
   * scored exactly, with a few more that ranked near them; unsorted, removed chunks left out. Few
   * are ranked here one by one; more by usearch's exact int8 search (SIMD, several times faster):
   * a subset is copied, `gatheredAtMost` chunks at a time, into a buffer kept for the purpose, and
   * each part's best are kept.
   */
  scan(query: Float32Array, queryNorm: number, k: number, chunks?: ArrayLike<number>): Array<NearChunk> {
    const count = chunks?.length ?? this.used
    const at = (i: number) => (chunks === undefined ? i : chunks[i]!)
    if (count <= scannedHere || rankedMargin(k) >= count)
      return this.rescored(
        query,
        queryNorm,
        k,
        Array.from({ length: count }, (_, i) => at(i))
      )
    const rounded = new Int8Array(this.dims)
    quantize(query, rounded)
    const ranked: Array<number> = []
    if (chunks === undefined) {
      // Removed chunks still take rows of the set: ask for enough to pass over them.
      const rows = this.data.subarray(0, this.used * this.dims)
      const wanted = Math.min(this.used, rankedMargin(k) + (this.used - this.live))
      for (const key of usearch.exactSearch(rows, rounded, this.dims, wanted, usearch.MetricKind.Cos, 1).keys)
        ranked.push(Number(key))
    } else {
      for (let from = 0; from < count; from += gatheredAtMost) {
        const part = Math.min(gatheredAtMost, count - from)
        const rows = this.gathered(part)
        for (let i = 0; i < part; i++) {
          const chunk = chunks[from + i]!
          rows.set(this.data.subarray(chunk * this.dims, (chunk + 1) * this.dims), i * this.dims)
        }
        const wanted = Math.min(rankedMargin(k), part)
        for (const key of usearch.exactSearch(rows, rounded, this.dims, wanted, usearch.MetricKind.Cos, 1)
          .keys)
          ranked.push(chunks[from + Number(key)]!)
      }
    }
    return this.rescored(query, queryNorm, k, ranked)
  }

  /** Lets go of the file of float rows and of the graph; the set answers no more. */
  close(): void {
    this.closed = true
    this.exact.close()
    this.graph?.close()
    this.graph = undefined
  }

  /**
   * Throws once the graph's thread has ended: the graph is gone with it, and the set no longer
   * agrees with it (the index holding the set is dropped, and loaded again into a new thread).
   */
  private alive(): void {
    if (this.graph?.ended === true) throw new Error("the graph thread ended; the set's graph is gone")
  }

  /** A buffer of at least `rows` rows for `scan` to copy a subset into, kept between calls. */
  private gathered(rows: number): Int8Array {
    if (this.scratch.length < rows * this.dims) this.scratch = new Int8Array(rows * this.dims)
    return this.scratch.subarray(0, rows * this.dims)
  }

  private reserve(rows: number): void {
    const capacity = this.norms.length
    if (rows <= capacity) return
    const next = Math.max(rows, capacity * 2)
    this.data = grown(this.data, next * this.dims)
    this.scales = grown(this.scales, next)
    this.norms = grown(this.norms, next)
    this.owners = grown(this.owners, next, -1)
    this.keyOfSlot = grown(this.keyOfSlot, next, -1)
  }
}

/** A query vector as the set reads it, with its squared norm. */
export const queryOf = (vector: ReadonlyArray<number>): { vector: Float32Array; norm: number } => {
  const query = Float32Array.from(vector)
  let norm = 0
  for (const x of query) norm += x * x
  return { vector: query, norm }
}
