import { availableParallelism } from "node:os"
import usearch from "usearch"

/** A chunk found near a query: its slot in the set and its cosine similarity to the query. */
export interface NearChunk {
  readonly chunk: number
  readonly similarity: number
}

/**
 * Below this many live chunks a nearest search scans every vector exactly (about a millisecond
 * per 2,000 chunks of 768 dimensions here); at or above it the set keeps an HNSW graph.
 */
export const graphFrom = 4_000

const cores = Math.max(1, availableParallelism())

/** Chunks added to the graph in one synchronous call while it is built: a few ms each. */
const graphBatch = 64

/** Up to this many chunks, a scan scores each one here; beyond, usearch's exact search ranks them first. */
const scannedHere = 256

/** A scanned subset is copied apart this many chunks at a time (24 MB at 768 dimensions). */
const gatheredAtMost = 8_192

/** Chunks not yet in the graph that a graph search still finds by scanning them exactly. */
const pendingScanned = 2_000

/**
 * The chunk vectors of one account, kept in memory as float32 (as pgvector keeps them), each
 * with the memory slot it belongs to. Similarities are computed exactly, in double precision,
 * as `1 - cosine distance`; the HNSW graph (usearch, vectors quantized to int8) only proposes
 * candidates for large sets, which are then scored exactly.
 */
export class VectorSet {
  private data: Float32Array
  private norms: Float64Array
  private owners: Int32Array
  private used = 0
  private live = 0
  private graph: InstanceType<typeof usearch.Index> | undefined
  /** Chunks added since the graph was made that it does not hold yet (built in batches). */
  private pending: Array<number> = []
  /** Where `scan` copies a subset of the rows (grown as needed, to `gatheredAtMost` rows at most). */
  private scratch = new Float32Array(0)

  constructor(
    readonly dims: number,
    capacity = 1_024
  ) {
    this.data = new Float32Array(capacity * dims)
    this.norms = new Float64Array(capacity)
    this.owners = new Int32Array(capacity).fill(-1)
  }

  /** Live chunks. */
  get size(): number {
    return this.live
  }

  /** Whether `buildStep` has work: a graph to make, or chunks it does not hold yet. */
  get graphBehind(): boolean {
    return this.graph === undefined ? this.live >= graphFrom : this.pending.length > 0
  }

  /**
   * Whether `nearest` can answer: the graph exists and lacks at most `pendingScanned` chunks
   * (those it scans exactly). While a large set's graph is being built, the set is scanned.
   */
  get graphReady(): boolean {
    return this.graph !== undefined && this.pending.length <= pendingScanned
  }

  /** Stores a memory's chunk vectors; their slots, in order. */
  add(owner: number, vectors: ReadonlyArray<ArrayLike<number>>): Array<number> {
    const slots: Array<number> = []
    for (const vector of vectors) {
      if (vector.length !== this.dims)
        throw new Error(`a vector of ${vector.length} dimensions in a set of ${this.dims}`)
      this.reserve(this.used + 1)
      const slot = this.used++
      const row = this.data.subarray(slot * this.dims, (slot + 1) * this.dims)
      row.set(vector)
      let norm = 0
      for (let i = 0; i < this.dims; i++) norm += row[i]! * row[i]!
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
    const inGraph: Array<bigint> = []
    for (const slot of slots) {
      if (this.owners[slot] === -1) continue
      this.owners[slot] = -1
      this.live--
      inGraph.push(BigInt(slot))
    }
    if (this.graph !== undefined && inGraph.length > 0) {
      const held = this.graph.contains(inGraph) as Array<boolean>
      const keys = inGraph.filter((_, i) => held[i])
      if (keys.length > 0) this.graph.remove(keys)
    }
  }

  /** The memory slot a chunk belongs to, or -1 once it is removed. */
  owner(slot: number): number {
    return this.owners[slot] ?? -1
  }

  /** Cosine similarity of a chunk to a query whose squared norm is `queryNorm`. */
  similarity(query: Float32Array, queryNorm: number, slot: number): number {
    const dims = this.dims
    const base = slot * dims
    const data = this.data
    // Four sums at once: a search scores a few hundred chunks after its embedding, and one running
    // sum makes each step wait for the last (twice the time here at 768 dimensions).
    let d0 = 0
    let d1 = 0
    let d2 = 0
    let d3 = 0
    let i = 0
    for (; i + 3 < dims; i += 4) {
      d0 += query[i]! * data[base + i]!
      d1 += query[i + 1]! * data[base + i + 1]!
      d2 += query[i + 2]! * data[base + i + 2]!
      d3 += query[i + 3]! * data[base + i + 3]!
    }
    for (; i < dims; i++) d0 += query[i]! * data[base + i]!
    const norms = queryNorm * this.norms[slot]!
    return norms === 0 ? 0 : (d0 + d1 + (d2 + d3)) / Math.sqrt(norms)
  }

  /**
   * Adds up to one batch of the chunks the graph lacks, making the graph once the set is large
   * enough; whether more remain. Called repeatedly between other work, so no call blocks long.
   */
  buildStep(): boolean {
    if (this.graph === undefined) {
      if (this.live < graphFrom) return false
      this.graph = new usearch.Index({
        dimensions: this.dims,
        metric: usearch.MetricKind.Cos,
        quantization: usearch.ScalarKind.I8,
        connectivity: 16,
        expansion_add: 128,
        expansion_search: 64,
        multi: false
      })
      this.pending = []
      for (let slot = 0; slot < this.used; slot++) if (this.owners[slot] !== -1) this.pending.push(slot)
    }
    const batch = this.pending.splice(0, graphBatch).filter((slot) => this.owners[slot] !== -1)
    if (batch.length > 0) {
      const vectors = new Float32Array(batch.length * this.dims)
      batch.forEach((slot, i) => {
        vectors.set(this.data.subarray(slot * this.dims, (slot + 1) * this.dims), i * this.dims)
      })
      // Every core: a batch holds up the event loop for a few ms either way, and a load of 100,000
      // memories spends most of its time here (80 s on one core).
      this.graph.add(BigUint64Array.from(batch, BigInt), vectors, cores)
    }
    return this.pending.length > 0
  }

  /**
   * The chunks nearest a query by the graph, `k` at most, and every chunk the graph does not hold
   * yet, all scored exactly; unsorted. Only when `graphReady`; otherwise the caller scans.
   */
  nearest(query: Float32Array, queryNorm: number, k: number): Array<NearChunk> {
    const near: Array<NearChunk> = []
    const graphed = this.graph?.size() ?? 0
    if (this.graph !== undefined && graphed > 0) {
      // At least 64, rescored exactly: the graph's int8 distances misorder near neighbours, the
      // exact ones put the best first again. (A search asks for 4 chunks a memory it wants.)
      const found = this.graph.search(query, Math.min(Math.max(k, 64), graphed), 1)
      for (const key of found.keys) {
        const chunk = Number(key)
        if (this.owners[chunk] !== -1)
          near.push({ chunk, similarity: this.similarity(query, queryNorm, chunk) })
      }
    }
    for (const chunk of this.pending)
      if (this.owners[chunk] !== -1)
        near.push({ chunk, similarity: this.similarity(query, queryNorm, chunk) })
    return near
  }

  /**
   * The `k` chunks nearest a query among `chunks` (every chunk the set ever held, when omitted),
   * scored exactly; unsorted, removed chunks left out. Few are scored here one by one; more are
   * ranked by usearch's exact search (SIMD, several times faster) and only those kept are scored
   * here: a subset is copied, `gatheredAtMost` chunks at a time, into a buffer kept for the
   * purpose, and each part's `k` nearest are kept.
   */
  scan(query: Float32Array, queryNorm: number, k: number, chunks?: ArrayLike<number>): Array<NearChunk> {
    const count = chunks?.length ?? this.used
    const near: Array<NearChunk> = []
    const keep = (chunk: number) => {
      if (this.owners[chunk] !== -1)
        near.push({ chunk, similarity: this.similarity(query, queryNorm, chunk) })
    }
    if (count <= scannedHere || k >= count) {
      for (let i = 0; i < count; i++) keep(chunks === undefined ? i : chunks[i]!)
      return near
    }
    if (chunks === undefined) {
      // Removed chunks still take rows of the set: ask for enough to pass over them.
      const rows = this.data.subarray(0, this.used * this.dims)
      const wanted = Math.min(this.used, k + (this.used - this.live))
      for (const key of usearch.exactSearch(rows, query, this.dims, wanted, usearch.MetricKind.Cos, 1).keys)
        keep(Number(key))
      return near
    }
    for (let from = 0; from < count; from += gatheredAtMost) {
      const part = Math.min(gatheredAtMost, count - from)
      const rows = this.gathered(part)
      for (let i = 0; i < part; i++) {
        const chunk = chunks[from + i]!
        rows.set(this.data.subarray(chunk * this.dims, (chunk + 1) * this.dims), i * this.dims)
      }
      const found = usearch.exactSearch(rows, query, this.dims, Math.min(k, part), usearch.MetricKind.Cos, 1)
      for (const key of found.keys) keep(chunks[from + Number(key)]!)
    }
    return near
  }

  /** A buffer of at least `rows` rows for `scan` to copy a subset into, kept between calls. */
  private gathered(rows: number): Float32Array {
    if (this.scratch.length < rows * this.dims) this.scratch = new Float32Array(rows * this.dims)
    return this.scratch.subarray(0, rows * this.dims)
  }

  private reserve(rows: number): void {
    const capacity = this.norms.length
    if (rows <= capacity) return
    const next = Math.max(rows, capacity * 2)
    const data = new Float32Array(next * this.dims)
    data.set(this.data)
    const norms = new Float64Array(next)
    norms.set(this.norms)
    const owners = new Int32Array(next).fill(-1)
    owners.set(this.owners)
    this.data = data
    this.norms = norms
    this.owners = owners
  }
}

/** A query vector as the set reads it, with its squared norm. */
export const queryOf = (vector: ReadonlyArray<number>): { vector: Float32Array; norm: number } => {
  const query = Float32Array.from(vector)
  let norm = 0
  for (const x of query) norm += x * x
  return { vector: query, norm }
}
