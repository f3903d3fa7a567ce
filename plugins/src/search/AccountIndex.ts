import { setImmediate as nextTurn } from "node:timers/promises"
import {
  anyMemory,
  type Candidate,
  compareCodePoints,
  isAnyMemory,
  type MemoryFilter,
  matchesFilter,
  type Neighbours,
  type RankingFacts,
  type RecalledMemory,
  type Selection
} from "@umo/core"
import { type HeldMemory, MemoryEntries } from "./MemoryEntries.js"
import { isMemoryId } from "./MemoryIds.js"
import { SelectionMaps } from "./SelectionMaps.js"
import { type TermCounts, TextPostings } from "./TextPostings.js"
import { graphWorkingBytes, type NearChunk, queryOf, VectorSet } from "./VectorSet.js"

/** A chunk as a snapshot of the vector graph names it (see `AccountIndex.graphChunks`). */
export interface GraphChunk {
  readonly umo_id: string
  /** Its place among the memory's chunks. */
  readonly chunk: number
  /** Its vector's (`VectorSet.fingerprint`). */
  readonly fingerprint: Buffer
}

/** A memory as the index loads it from the store. */
export interface IndexedRow extends HeldMemory {
  /** Its stemmed terms and their counts, and its length in terms (its tsvector's). */
  readonly terms: TermCounts
  readonly length: number
  /** Its chunk vectors, in chunk order. */
  readonly vectors: ReadonlyArray<ArrayLike<number>>
}

/**
 * About what a memory takes beside its entry, postings, lists and vectors: its place in its
 * timeline (a JavaScript array's). An estimate, for the index's budget; bench:memory checks the
 * whole against the process's resident memory.
 */
const perMemory = 8

/** BM25 scores the holders of the rarest query terms while they add up to at most this (the SQL search's budget). */
const candidateBudget = 1_000
/** A filtered selection smaller than this is searched whole (the SQL search's `exactBelow`). */
const exactBelow = 2_000
/** A selection with at most this many chunks is scanned exactly rather than searched through the graph. */
const scanChunks = 6_000
/** A graph search asks for at most this share (1 in …) of the set's chunks before a scan replaces it. */
const graphShare = 16

/**
 * The most chunks a search scans in this thread while the set's graph cannot answer (being built,
 * or the graph thread saving or loading a graph): about 65 ms here (0.13 µs a chunk: 15 ms at
 * 100,000, 38 ms at 300,000). A larger selection is read from the database meanwhile: a scan of
 * 1,000,000 chunks would stall every other request for 130 ms or more.
 */
const scannedAtMost = 500_000

/** Keys a snapshot's reading or writing takes between two turns of the event loop (a SHA-256 each, about 2 µs). */
export const keysAtOnce = 5_000

/** Best first, ties by id: the order of the SQL search's `ORDER BY score DESC, umo_id`. */
const byScore = (a: Candidate, b: Candidate) => b.score - a.score || (a.umo_id < b.umo_id ? -1 : 1)

/**
 * One account's memories as search reads them, in memory: their chunk vectors (`VectorSet`),
 * full-text postings (`TextPostings`), scope, source and metadata maps that narrow a filter to its
 * memories (`SelectionMaps`), each source's timeline, and what ranking reads. Its answers are the
 * SQL search's (`SqlMemorySearch`), by the same rules: selection first, then scores. Synchronous
 * and pure: the caller keeps it in step with the store.
 */
export class AccountIndex {
  private readonly entries: MemoryEntries
  private readonly vectors: VectorSet
  private readonly text = new TextPostings()
  private readonly maps = new SelectionMaps()
  /** Whether a bulk load left the timelines out of order (see `settle`). */
  private unsettled = false
  /** Each source's memories (slots) by content time, then id. */
  private readonly timelines = new Map<string, Array<number>>()

  /**
   * `rowsDir`: where the vectors' float32 rows are kept (see `ExactRows`); `chunks`: how many chunk
   * vectors to make room for at once, when a load knows (its memories: one chunk at least each).
   * Room grown by doubling copies every vector held: at 1,000,000 chunks, 400 MB copied into
   * 800 MB just made, in one step that stalls the thread for hundreds of milliseconds.
   */
  constructor(dims: number, rowsDir?: string, chunks = 64) {
    this.vectors = new VectorSet(dims, chunks, rowsDir)
    this.entries = new MemoryEntries(chunks)
  }

  /** The dimension of the vectors it holds. */
  get dims(): number {
    return this.vectors.dims
  }

  /**
   * Bytes the index holds in memory, about: its entries, postings, maps and vectors, and for each
   * memory its place in its timeline (`perMemory`).
   */
  get bytes(): number {
    return (
      this.entries.bytes +
      perMemory * this.entries.size +
      this.maps.bytes +
      this.text.bytes +
      this.vectors.bytes
    )
  }

  /** What `indexes` hold in memory together, about: their `bytes`, and the graphs' library once if any has a graph. */
  static held(indexes: Iterable<AccountIndex>): number {
    let bytes = 0
    let graphed = false
    for (const index of indexes) {
      bytes += index.bytes
      graphed ||= index.vectors.graphed
    }
    return bytes + (graphed ? graphWorkingBytes : 0)
  }

  /** Lets go of what the index holds outside the heap (its vectors' file); it answers no more. */
  close(): void {
    this.vectors.close()
  }

  /** Live memories. */
  get size(): number {
    return this.entries.size
  }

  /** Memories removed since it was made (deleted, or replaced by their re-embedding): their bytes are still held. */
  get removed(): number {
    return this.entries.slots - this.entries.size
  }

  /** Whether the vector graph lacks chunks the index holds (see `buildStep`). */
  get graphBehind(): boolean {
    return this.vectors.graphBehind
  }

  /** Builds a batch of the vector graph; whether more remain. */
  buildStep(): boolean {
    return this.vectors.buildStep()
  }

  /** Builds the vector graph whole, blocking this thread (`VectorSet.buildAll`): for benchmarks and tests. */
  buildAll(): void {
    this.vectors.buildAll()
  }

  /**
   * Lets other work run before the next `buildStep`, and waits (without blocking) until the graph
   * thread has done what it was asked: the batch `buildStep` gave it, or a save or a load, during
   * which `buildStep` adds nothing.
   */
  async pause(): Promise<void> {
    await nextTurn()
    await this.vectors.graphSettled()
  }

  /** Keys in the vector graph (removed ones included): what a snapshot of it holds. */
  get graphKeys(): number {
    return this.vectors.graphKeys
  }

  /**
   * The chunk each key of the vector graph holds now, to be read later, a key at a time, whatever
   * changes meanwhile: its memory, its place among the memory's chunks and its vector's
   * fingerprint; undefined for a key removed. Taking it costs a pass over the keys; the
   * fingerprints (a SHA-256 each, seconds at 1,000,000 chunks) are made as they are read.
   */
  graphChunks(): { readonly keys: number; readonly at: (key: number) => GraphChunk | undefined } {
    const slots = this.vectors.graphSlots()
    // The owners as they are now: a memory removed or replaced later keeps its id and chunks in
    // its slot, and a slot's vector is never rewritten (slots are not reused).
    const owners = new Int32Array(slots.length)
    for (let key = 0; key < slots.length; key++)
      owners[key] = slots[key] === -1 ? -1 : this.vectors.owner(slots[key]!)
    return {
      keys: slots.length,
      at: (key) => {
        const owner = owners[key]!
        const slot = slots[key]!
        return owner === -1
          ? undefined
          : {
              umo_id: this.entries.umoId(owner),
              chunk: slot - this.entries.firstChunk(owner),
              fingerprint: this.vectors.fingerprint(slot)
            }
      }
    }
  }

  /** Writes the vector graph, as it is now, to `path`, off the main thread; false when the index has none. */
  saveGraph(path: string): Promise<boolean> {
    return this.vectors.saveGraph(path)
  }

  /**
   * Takes the vector graph saved at `path` (by `saveGraph`, with `chunkAt(key)` as `graphChunks`
   * gave them) instead of building it: a key is kept only where the index holds that chunk of
   * that memory with the same vector; the rest of its chunks are built by `buildStep`. Before
   * the graph is built. How many keys were kept.
   */
  async adoptGraph(
    path: string,
    keys: number,
    chunkAt: (key: number) => GraphChunk | undefined
  ): Promise<number> {
    const slots = new Int32Array(keys).fill(-1)
    let kept = 0
    for (let key = 0; key < keys; key++) {
      // A fingerprint a key: the event loop runs between batches (seconds at 1,000,000 keys).
      if (key % keysAtOnce === keysAtOnce - 1) await nextTurn()
      const chunk = chunkAt(key)
      const owner = chunk === undefined ? undefined : this.entries.slotOf(chunk.umo_id)
      const slot =
        owner === undefined || chunk!.chunk >= this.entries.chunkCount(owner)
          ? undefined
          : this.entries.firstChunk(owner) + chunk!.chunk
      if (slot !== undefined && this.vectors.fingerprint(slot).equals(chunk!.fingerprint)) {
        slots[key] = slot
        kept++
      }
    }
    await this.vectors.adoptGraph(path, slots)
    return kept
  }

  has(umoId: string): boolean {
    return this.entries.slotOf(umoId) !== undefined
  }

  /** Adds a memory (replacing the one with its id, if any). */
  add(row: IndexedRow, { bulk = false }: { readonly bulk?: boolean } = {}): void {
    if (!isMemoryId(row.umo_id)) throw new Error(`a memory id that is not a UUID: ${row.umo_id}`)
    this.remove(row.umo_id)
    const chunks = this.vectors.add(this.entries.slots, row.vectors)
    const slot = this.entries.add(row, chunks[0] ?? -1, chunks.length)
    this.text.add(slot, row.terms, row.length)
    this.maps.add(slot, row, bulk)
    const timeline = this.timeline(row.source)
    // A bulk load appends, and `settle` sorts each timeline once: inserting each of a million
    // memories in place moved half a timeline each time.
    if (bulk) {
      timeline.push(slot)
      this.unsettled = true
    } else timeline.splice(this.position(timeline, slot), 0, slot)
  }

  /** Puts the timelines and time orders of a bulk load in order (content time, then id); before any other call. */
  settle(): void {
    this.maps.settle()
    if (!this.unsettled) return
    for (const timeline of this.timelines.values()) timeline.sort((a, b) => this.order(a, b))
    this.unsettled = false
  }

  /** Removes a memory (nothing when the index does not hold it). */
  remove(umoId: string): void {
    const slot = this.entries.slotOf(umoId)
    if (slot === undefined) return
    const source = this.entries.source(slot)
    const timeline = this.timeline(source)
    const at = this.position(timeline, slot)
    if (timeline[at] === slot) timeline.splice(at, 1)
    if (timeline.length === 0) this.timelines.delete(source ?? "")
    this.maps.remove(slot, this.entries.filterable(slot))
    this.vectors.remove(
      Array.from({ length: this.entries.chunkCount(slot) }, (_, i) => this.entries.firstChunk(slot) + i)
    )
    this.text.remove(slot)
    this.entries.remove(slot)
  }

  /** Marks a memory superseded (nothing when the index does not hold it). */
  supersede(umoId: string, by: string): void {
    const slot = this.entries.slotOf(umoId)
    if (slot !== undefined) this.entries.supersede(slot, by)
  }

  /**
   * Nearest memories by their best chunk's cosine similarity (`MemorySearch.searchVector`): the
   * `limit * 4` nearest chunks of the selection, as the SQL search reads them, each memory
   * scored by its best. A selection the scope maps narrow to a few thousand chunks is scanned
   * exactly; a wider one is searched through the graph (or a scan of every chunk, for a set too
   * small for one), which is asked for more until `limit` selected memories are found.
   * Undefined when the graph cannot answer and the selection is too large to scan here
   * (`scannedAtMost`): the database answers that search.
   */
  searchVector(
    vector: ReadonlyArray<number>,
    options: Selection & { readonly limit: number; readonly ids?: ReadonlyArray<string> | undefined }
  ): Array<Candidate> | undefined {
    const query = queryOf(vector)
    const admits = this.admits(options)
    const best = new Map<number, number>()
    const keep = (near: ReadonlyArray<NearChunk>) => {
      for (const { chunk, similarity } of near) {
        const slot = this.vectors.owner(chunk)
        if (slot !== -1 && admits(slot) && similarity > (best.get(slot) ?? -Infinity))
          best.set(slot, similarity)
      }
    }
    const chunksOf = (slots: Iterable<number>, atMost: number) => {
      const chunks: Array<number> = []
      for (const slot of slots) {
        if (!admits(slot)) continue
        const first = this.entries.firstChunk(slot)
        for (let i = 0; i < this.entries.chunkCount(slot); i++) chunks.push(first + i)
        if (chunks.length > atMost) return undefined
      }
      return chunks
    }
    if (options.ids !== undefined) {
      const chunks = chunksOf(this.slotsOf(options.ids), Number.POSITIVE_INFINITY)!
      keep(this.vectors.scan(query.vector, query.norm, chunks.length, chunks))
      return this.top(best, options.limit)
    }
    const pool = options.limit * 4
    const narrowed = this.maps.narrowed(options.filter ?? anyMemory)
    const graphed = this.vectors.graphReady
    // A selection the maps narrowed to few chunks, and few beside the set's, is scanned exactly: a
    // graph search would pass over most of what it finds. (A wider one, a time range holding half
    // the set say, is found through the graph: scanning 6,000 chunks took 3–9 ms, a graph search
    // for 24 under 1 ms.)
    const few = narrowed !== undefined && (!graphed || narrowed.size * graphShare <= this.vectors.size)
    const chunks = few ? chunksOf(narrowed.slots(), scanChunks) : undefined
    if (chunks !== undefined) {
      keep(this.vectors.scan(query.vector, query.norm, pool, chunks))
      return this.top(best, options.limit)
    }
    // Through the graph, asked for more while too few of what it finds are selected, as long as
    // that stays a small share of the set and below what the maps narrowed the selection to
    // (scanning those costs less than a deeper graph search); past that, the selected memories'
    // chunks are scanned (every memory tested against the filter if need be).
    if (graphed)
      for (
        let k = pool;
        k * graphShare <= this.vectors.size && (narrowed === undefined || k <= narrowed.size);
        k *= 4
      ) {
        best.clear()
        keep(this.vectors.nearest(query.vector, query.norm, k))
        if (best.size >= options.limit) return this.top(best, options.limit)
      }
    best.clear()
    // The chunks a scan would read, about: the set's share the maps narrowed the selection to.
    if (
      !graphed &&
      (this.vectors.size * (narrowed?.size ?? this.size)) / Math.max(1, this.size) > scannedAtMost
    )
      return undefined
    const selected = chunksOf(narrowed?.slots() ?? this.entries.liveSlots(), Number.POSITIVE_INFINITY)!
    keep(this.vectors.scan(query.vector, query.norm, pool, selected))
    return this.top(best, options.limit)
  }

  /**
   * BM25 over the memories' terms (`MemorySearch.searchText`), given the query's distinct terms:
   * the same candidates as the SQL search (the ids given; a filtered selection under 2,000
   * memories whole; otherwise the holders of the rarest terms within the budget) and the same scores.
   */
  searchText(
    lexemes: ReadonlyArray<string>,
    options: Selection & { readonly limit: number; readonly ids?: ReadonlyArray<string> | undefined }
  ): Array<Candidate> {
    const admits = this.admits(options)
    const candidates = new Set<number>()
    if (options.ids !== undefined) {
      for (const slot of this.slotsOf(options.ids)) if (admits(slot)) candidates.add(slot)
    } else {
      const filter = options.filter ?? anyMemory
      const selected = isAnyMemory(filter) ? undefined : this.selected(filter, admits, exactBelow)
      if (selected !== undefined && selected.length < exactBelow)
        for (const slot of selected) candidates.add(slot)
      else {
        const rarest = lexemes
          .map((lexeme) => ({ lexeme, documents: this.text.documentsWith(lexeme) }))
          .sort((a, b) => a.documents - b.documents || compareCodePoints(a.lexeme, b.lexeme))
        let running = 0
        for (const term of rarest) {
          running += term.documents
          if (running > candidateBudget) break
          this.text.holders(term.lexeme, (slot) => {
            if (admits(slot)) candidates.add(slot)
          })
        }
      }
    }
    const scored: Array<Candidate> = []
    for (const slot of candidates) {
      const score = this.text.score(slot, lexemes)
      if (score !== undefined) scored.push({ umo_id: this.entries.umoId(slot), score })
    }
    return scored.sort(byScore).slice(0, options.limit)
  }

  /** Each memory's neighbours in its source's timeline among the selection (`MemorySearch.neighbours`). */
  neighbours(umoIds: ReadonlyArray<string>, selection: Selection): Array<Neighbours> {
    const admits = this.admits(selection)
    return [...this.slotsOf(umoIds)].map((slot) => {
      const timeline = this.timeline(this.entries.source(slot))
      const at = this.position(timeline, slot)
      const step = (from: number, by: 1 | -1) => {
        for (let i = from; i >= 0 && i < timeline.length; i += by)
          if (timeline[i] !== slot && admits(timeline[i]!)) return this.entries.umoId(timeline[i]!)
        return null
      }
      return { umo_id: this.entries.umoId(slot), previous: step(at - 1, -1), next: step(at + 1, 1) }
    })
  }

  /** What ranking reads of the memories among `umoIds` that the index holds (their texts are not decoded). */
  rankingFacts(umoIds: ReadonlyArray<string>): Array<RankingFacts> {
    return [...this.slotsOf(umoIds)].map((slot) => ({
      umo_id: this.entries.umoId(slot),
      timestamp: this.entries.timestamp(slot),
      entities: this.entries.entities(slot),
      superseded_by: this.entries.supersededBy(slot),
      facts: this.entries.facts(slot)
    }))
  }

  /** The first chunk's vector of each memory among `umoIds` that the index holds. */
  firstVectors(umoIds: ReadonlyArray<string>): Map<string, ReadonlyArray<number>> {
    const out = new Map<string, ReadonlyArray<number>>()
    for (const slot of this.slotsOf(umoIds))
      if (this.entries.chunkCount(slot) > 0)
        out.set(this.entries.umoId(slot), Array.from(this.vectors.vector(this.entries.firstChunk(slot))))
    return out
  }

  /**
   * What a search returns of the memories among `umoIds` that the index holds (`held`), and the
   * ids of those it holds without their text (`unheld`: long documents, read from the store).
   */
  recalled(umoIds: ReadonlyArray<string>): { held: Array<RecalledMemory>; unheld: Array<string> } {
    const held: Array<RecalledMemory> = []
    const unheld: Array<string> = []
    for (const slot of this.slotsOf(umoIds)) {
      if (!this.entries.holdsText(slot)) {
        unheld.push(this.entries.umoId(slot))
        continue
      }
      const memory = this.entries.memory(slot)
      held.push({
        umo_id: memory.umo_id,
        content: memory.content!,
        summary: memory.summary!,
        entities: memory.entities,
        timestamp: memory.timestamp,
        created_at: memory.created_at,
        source: memory.source,
        user_id: memory.user_id,
        agent_id: memory.agent_id,
        session_id: memory.session_id,
        metadata: memory.metadata,
        categories: memory.categories,
        superseded_by: memory.superseded_by,
        // The index holds the text of memories that never expire only (see `IndexRows`).
        expires_at: null
      })
    }
    return { held, unheld }
  }

  private top(best: ReadonlyMap<number, number>, limit: number): Array<Candidate> {
    return [...best]
      .map(([slot, score]) => ({ umo_id: this.entries.umoId(slot), score }))
      .sort(byScore)
      .slice(0, limit)
  }

  private slotsOf(umoIds: ReadonlyArray<string>): Set<number> {
    const slots = new Set<number>()
    for (const id of umoIds) {
      const slot = this.entries.slotOf(id)
      if (slot !== undefined) slots.add(slot)
    }
    return slots
  }

  /** Whether a live memory is in the selection: current unless superseded ones are asked for, and admitted by the filter. */
  private admits(selection: Selection): (slot: number) => boolean {
    const filter = selection.filter ?? anyMemory
    const any = isAnyMemory(filter)
    const superseded = selection.includeSuperseded === true
    return (slot) =>
      this.entries.isLive(slot) &&
      (superseded || this.entries.supersededBy(slot) === null) &&
      (any || matchesFilter(this.entries.filterable(slot), filter))
  }

  /**
   * The selected memories, read from the scope maps where the filter names scopes, else from
   * every memory; `undefined` once there are `atMost` (the caller then needs no list).
   */
  private selected(
    filter: MemoryFilter,
    admits: (slot: number) => boolean,
    atMost: number
  ): Array<number> | undefined {
    const selected: Array<number> = []
    for (const slot of this.maps.narrowed(filter)?.slots() ?? this.entries.liveSlots()) {
      if (!admits(slot)) continue
      selected.push(slot)
      if (selected.length >= atMost) return undefined
    }
    return selected
  }

  private timeline(source: string | null): Array<number> {
    const key = source ?? ""
    let timeline = this.timelines.get(key)
    if (timeline === undefined) {
      timeline = []
      this.timelines.set(key, timeline)
    }
    return timeline
  }

  /** Where the memory in `slot` is or would go in its timeline (binary search by content time, then id). */
  private position(timeline: ReadonlyArray<number>, slot: number): number {
    let low = 0
    let high = timeline.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.order(timeline[middle]!, slot) < 0) low = middle + 1
      else high = middle
    }
    return low
  }

  /** A timeline's order (content time, then id): negative when the memory in slot `a` comes before `b`'s. */
  private order(a: number, b: number): number {
    return this.entries.time(a) - this.entries.time(b) || this.entries.compareIds(a, b)
  }
}
