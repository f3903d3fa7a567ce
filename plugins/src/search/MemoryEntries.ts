import type { Entity, FilterableMemory, MetadataValue, StatedFact } from "@umo/core"
import { MemoryIds } from "./MemoryIds.js"
import { grown } from "./TypedArrays.js"

/** A memory as the index holds it, read back whole (`MemoryEntries.memory`). */
export interface HeldMemory extends FilterableMemory {
  readonly umo_id: string
  /** Its content and summary, or null for a long document (see `IndexRows.longestHeld`). */
  readonly content: string | null
  readonly summary: string | null
  readonly superseded_by: string | null
  readonly entities: ReadonlyArray<Entity>
  readonly facts: ReadonlyArray<StatedFact>
}

/**
 * An empty list or metadata, read back: one object for all. Frozen, since they are shared and
 * answers hand them out.
 */
const none: ReadonlyArray<never> = Object.freeze([])
const noMetadata: Readonly<Record<string, MetadataValue>> = Object.freeze({})

const scopeFields = ["user_id", "agent_id", "session_id", "source"] as const
/** The texts kept of a memory, in this order: its content and summary, then its lists as JSON (none when empty). */
const parts = 6
const [contentPart, summaryPart, metadataPart, categoriesPart, entitiesPart, factsPart] = [0, 1, 2, 3, 4, 5]
/**
 * The byte store's pages: the first 64 kB, each next twice the last's, up to 4 MB (an account of a
 * few memories takes little). A memory's texts are kept in one page (a longer one gets its own).
 */
const firstPageBytes = 64 * 1024
const pageBytes = 4 * 1024 * 1024

/**
 * The memories of one account's index, by slot, kept in typed arrays and a store of bytes rather
 * than as objects: ids as 16 bytes each (`MemoryIds`, with a hash table of their own), scopes as
 * numbers of the values they name, times as numbers, texts and lists (as JSON) as UTF-8 in pages.
 * A million memories as objects and strings were millions of objects in V8's heap, which each full
 * garbage collection marks: pauses of a second and more on the main thread. Here they are a few
 * dozen arrays, whatever their number; a memory is read back as an object only when asked for.
 * Slots only grow; a removed memory's slot and bytes are not reused.
 */
export class MemoryEntries {
  private room: number
  private readonly ids: MemoryIds
  private firstChunks: Int32Array
  private chunkCounts: Int32Array
  private contentTimes: Float64Array
  private createdTimes: Float64Array
  /** Each slot's scopes (`scopeFields`), as a value's number + 1 (0 for null). */
  private scopes: Int32Array
  private readonly values: Array<string> = []
  private readonly valueNumbers = new Map<string, number>()
  /** Each slot's texts: their page, where they start in it, and each part's length in bytes (-1: null or empty). */
  private textPages: Int32Array
  private textStarts: Int32Array
  private textLengths: Int32Array
  private readonly pages: Array<Buffer> = []
  private pageUsed = 0
  private pagesBytes = 0
  private readonly superseded = new Map<number, string>()
  /** The times that are not their number's ISO 8601 form (`toISOString`), as they were given. */
  private readonly oddTimes = new Map<number, { readonly timestamp: string; readonly created_at: string }>()

  /** `room`: memories to make room for at once (growing by doubling copies every array). */
  constructor(room = 64) {
    this.room = Math.max(64, room)
    this.ids = new MemoryIds(this.room)
    this.firstChunks = new Int32Array(this.room)
    this.chunkCounts = new Int32Array(this.room)
    this.contentTimes = new Float64Array(this.room)
    this.createdTimes = new Float64Array(this.room)
    this.scopes = new Int32Array(this.room * scopeFields.length)
    this.textPages = new Int32Array(this.room)
    this.textStarts = new Int32Array(this.room)
    this.textLengths = new Int32Array(this.room * parts)
  }

  /** Live memories. */
  get size(): number {
    return this.ids.size
  }

  /** Slots given so far (removed ones included). */
  get slots(): number {
    return this.ids.slots
  }

  /** Bytes held: the arrays, the pages written, and about what the values, supersessions and odd times take. */
  get bytes(): number {
    const arrays =
      this.ids.bytes +
      this.firstChunks.byteLength +
      this.chunkCounts.byteLength +
      this.contentTimes.byteLength +
      this.createdTimes.byteLength +
      this.scopes.byteLength +
      this.textPages.byteLength +
      this.textStarts.byteLength +
      this.textLengths.byteLength
    let values = 0
    for (const value of this.values) values += 64 + value.length
    return arrays + this.pagesBytes + values + 120 * (this.superseded.size + this.oddTimes.size)
  }

  /** Adds a memory in the next slot, its chunks `chunkCount` from `firstChunk`; its slot. */
  add(memory: HeldMemory, firstChunk: number, chunkCount: number): number {
    const slot = this.ids.add(memory.umo_id)
    this.reserve(slot + 1)
    this.firstChunks[slot] = firstChunk
    this.chunkCounts[slot] = chunkCount
    const [timestamp, created] = [Date.parse(memory.timestamp), Date.parse(memory.created_at)]
    this.contentTimes[slot] = timestamp
    this.createdTimes[slot] = created
    if (!isIso(timestamp, memory.timestamp) || !isIso(created, memory.created_at))
      this.oddTimes.set(slot, { timestamp: memory.timestamp, created_at: memory.created_at })
    for (const [i, field] of scopeFields.entries()) {
      const value = memory[field]
      this.scopes[slot * scopeFields.length + i] = value === null ? 0 : this.valueNumber(value) + 1
    }
    if (memory.superseded_by !== null) this.superseded.set(slot, memory.superseded_by)
    this.write(slot, [
      memory.content,
      memory.summary,
      Object.keys(memory.metadata).length === 0 ? null : JSON.stringify(memory.metadata),
      memory.categories.length === 0 ? null : JSON.stringify(memory.categories),
      memory.entities.length === 0 ? null : JSON.stringify(memory.entities),
      memory.facts.length === 0 ? null : JSON.stringify(memory.facts)
    ])
    return slot
  }

  /** The live memory's slot with this id, or undefined. */
  slotOf(umoId: string): number | undefined {
    return this.ids.slotOf(umoId)
  }

  /** Whether the slot holds a live memory. */
  isLive(slot: number): boolean {
    return this.ids.isLive(slot)
  }

  /** Removes the memory in `slot` (live). */
  remove(slot: number): void {
    this.ids.remove(slot)
    this.superseded.delete(slot)
    this.oddTimes.delete(slot)
  }

  /** Every live memory's slot, ascending. */
  liveSlots(): IterableIterator<number> {
    return this.ids.liveSlots()
  }

  umoId(slot: number): string {
    return this.ids.umoId(slot)
  }

  /** Ids' order (UTF-8, as SQL's "C" collation orders them): negative when slot `a`'s comes first. */
  compareIds(a: number, b: number): number {
    return this.ids.compare(a, b)
  }

  /** Content time in ms. */
  time(slot: number): number {
    return this.contentTimes[slot]!
  }

  firstChunk(slot: number): number {
    return this.firstChunks[slot]!
  }

  chunkCount(slot: number): number {
    return this.chunkCounts[slot]!
  }

  source(slot: number): string | null {
    return this.scope(slot, 3)
  }

  supersededBy(slot: number): string | null {
    return this.superseded.get(slot) ?? null
  }

  supersede(slot: number, by: string): void {
    this.superseded.set(slot, by)
  }

  /** Whether its content and summary are held (not a long document's, read from the store). */
  holdsText(slot: number): boolean {
    return (
      this.textLengths[slot * parts + contentPart]! !== -1 &&
      this.textLengths[slot * parts + summaryPart]! !== -1
    )
  }

  /**
   * The memory's filterable fields, read as the filter asks for them: one object a call, whose
   * fields are read from the arrays (a scan with a filter tests thousands of memories), its
   * metadata and categories parsed once at most.
   */
  filterable(slot: number): FilterableMemory {
    const entries = this
    let metadata: Readonly<Record<string, MetadataValue>> | undefined
    let categories: ReadonlyArray<string> | undefined
    return {
      get user_id() {
        return entries.scope(slot, 0)
      },
      get agent_id() {
        return entries.scope(slot, 1)
      },
      get session_id() {
        return entries.scope(slot, 2)
      },
      get source() {
        return entries.scope(slot, 3)
      },
      get timestamp() {
        return entries.timestamp(slot)
      },
      get created_at() {
        return entries.createdAt(slot)
      },
      get metadata() {
        metadata ??= entries.json(slot, metadataPart, noMetadata)
        return metadata
      },
      get categories() {
        categories ??= entries.json(slot, categoriesPart, none)
        return categories
      }
    }
  }

  /** The memory whole, as it was added (superseded since, if it was). */
  memory(slot: number): HeldMemory {
    return {
      umo_id: this.umoId(slot),
      content: this.text(slot, contentPart),
      summary: this.text(slot, summaryPart),
      user_id: this.scope(slot, 0),
      agent_id: this.scope(slot, 1),
      session_id: this.scope(slot, 2),
      source: this.scope(slot, 3),
      timestamp: this.timestamp(slot),
      created_at: this.createdAt(slot),
      metadata: this.json(slot, metadataPart, noMetadata),
      categories: this.json(slot, categoriesPart, none),
      superseded_by: this.supersededBy(slot),
      entities: this.entities(slot),
      facts: this.facts(slot)
    }
  }

  entities(slot: number): ReadonlyArray<Entity> {
    return this.json(slot, entitiesPart, none)
  }

  facts(slot: number): ReadonlyArray<StatedFact> {
    return this.json(slot, factsPart, none)
  }

  timestamp(slot: number): string {
    return this.oddTimes.get(slot)?.timestamp ?? new Date(this.contentTimes[slot]!).toISOString()
  }

  private createdAt(slot: number): string {
    return this.oddTimes.get(slot)?.created_at ?? new Date(this.createdTimes[slot]!).toISOString()
  }

  private scope(slot: number, field: number): string | null {
    const number = this.scopes[slot * scopeFields.length + field]!
    return number === 0 ? null : this.values[number - 1]!
  }

  private valueNumber(value: string): number {
    let number = this.valueNumbers.get(value)
    if (number === undefined) {
      number = this.values.length
      this.values.push(value)
      this.valueNumbers.set(value, number)
    }
    return number
  }

  private text(slot: number, part: number): string | null {
    const length = this.textLengths[slot * parts + part]!
    if (length === -1) return null
    let at = this.textStarts[slot]!
    for (let before = 0; before < part; before++) at += Math.max(0, this.textLengths[slot * parts + before]!)
    return this.pages[this.textPages[slot]!]!.toString("utf8", at, at + length)
  }

  private json<T>(slot: number, part: number, empty: T): T {
    const text = this.text(slot, part)
    return text === null ? empty : (JSON.parse(text) as T)
  }

  /** Writes a memory's texts, all in one page. */
  private write(slot: number, texts: ReadonlyArray<string | null>): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    const most = texts.reduce((sum, text) => sum + (text === null ? 0 : 3 * text.length), 0)
    if (this.pages.length === 0 || this.pageUsed + most > this.pages.at(-1)!.length) {
      const last = this.pages.at(-1)?.length ?? firstPageBytes / 2
      this.pages.push(Buffer.allocUnsafeSlow(Math.max(Math.min(pageBytes, 2 * last), most)))
      this.pageUsed = 0
    }
    const page = this.pages.at(-1)!
    const start = this.pageUsed
    let at = start
    for (const [part, text] of texts.entries()) {
      const length = text === null ? -1 : page.write(text, at, "utf8")
      this.textLengths[slot * parts + part] = length
      at += Math.max(0, length)
    }
    this.textPages[slot] = this.pages.length - 1
    this.textStarts[slot] = start
    this.pageUsed = at
    this.pagesBytes += at - start
  }

  private reserve(slots: number): void {
    if (slots <= this.room) return
    this.room = Math.max(slots, this.room * 2)
    this.firstChunks = grown(this.firstChunks, this.room)
    this.chunkCounts = grown(this.chunkCounts, this.room)
    this.contentTimes = grown(this.contentTimes, this.room)
    this.createdTimes = grown(this.createdTimes, this.room)
    this.scopes = grown(this.scopes, this.room * scopeFields.length)
    this.textPages = grown(this.textPages, this.room)
    this.textStarts = grown(this.textStarts, this.room)
    this.textLengths = grown(this.textLengths, this.room * parts)
  }
}

/** Whether `text` is the ISO 8601 form of the time `ms` (what `toISOString` gives back). */
const isIso = (ms: number, text: string) => Number.isFinite(ms) && new Date(ms).toISOString() === text
