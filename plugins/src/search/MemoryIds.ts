import { grown } from "./TypedArrays.js"

const hex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"))
const canonical = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether a string is a memory id as the store gives it: a UUID in lower case (PostgreSQL's `uuid::text`). */
export const isMemoryId = (id: string): boolean => canonical.test(id)

/** A 32-bit mix of a 32-bit word (the finalizer of MurmurHash3). */
const mix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/**
 * The memory ids of one account's index, by slot: 16 bytes each, found through an open-addressing
 * hash table of their own (a `Map` of a million id strings was a million objects for each full
 * garbage collection to mark). Which slots hold a live memory is kept here too. Slots are given in
 * order and never reused.
 */
export class MemoryIds {
  private room: number
  private given = 0
  private liveCount = 0
  /** Each slot's id, 16 bytes (`words`: the same as 32-bit words). */
  private ids: Uint8Array
  private words: Int32Array
  private live: Uint8Array
  /** Open addressing by id: a slot + 1, 0 for empty, -1 where one was removed. */
  private table: Int32Array
  private tableTaken = 0
  private readonly scratch = new Uint8Array(16)
  private readonly scratchWords = new Int32Array(this.scratch.buffer)

  /** `room`: slots to make room for at once (growing by doubling copies the arrays). */
  constructor(room = 64) {
    this.room = Math.max(64, room)
    this.ids = new Uint8Array(this.room * 16)
    this.words = new Int32Array(this.ids.buffer)
    this.live = new Uint8Array(this.room)
    this.table = new Int32Array(tableSize(this.room))
  }

  /** Live ids. */
  get size(): number {
    return this.liveCount
  }

  /** Slots given so far (removed ones included). */
  get slots(): number {
    return this.given
  }

  /** Bytes of its arrays. */
  get bytes(): number {
    return this.ids.byteLength + this.live.byteLength + this.table.byteLength
  }

  /** The slots it has room for without growing. */
  get capacity(): number {
    return this.room
  }

  /** Gives the id the next slot, live; that slot. Throws for an id that is not a UUID or is held already. */
  add(umoId: string): number {
    if (!this.parse(umoId)) throw new Error(`a memory id that is not a UUID: ${umoId}`)
    if (this.find() !== -1) throw new Error(`memory ${umoId} is held already`)
    const slot = this.given
    this.reserve(slot + 1)
    this.ids.set(this.scratch, slot * 16)
    // Into the table before it is live: a table made larger meanwhile holds the live slots.
    this.insert(slot)
    this.given++
    this.liveCount++
    this.live[slot] = 1
    return slot
  }

  /** The live slot with this id, or undefined. */
  slotOf(umoId: string): number | undefined {
    if (!this.parse(umoId)) return undefined
    const at = this.find()
    return at === -1 ? undefined : this.table[at]! - 1
  }

  /** Whether the slot holds a live memory. */
  isLive(slot: number): boolean {
    return this.live[slot] === 1
  }

  /** Takes the live slot's id out of the table. */
  remove(slot: number): void {
    this.scratch.set(this.ids.subarray(slot * 16, slot * 16 + 16))
    this.table[this.find()] = -1
    this.live[slot] = 0
    this.liveCount--
  }

  /** Every live slot, ascending. */
  *liveSlots(): IterableIterator<number> {
    for (let slot = 0; slot < this.given; slot++) if (this.live[slot] === 1) yield slot
  }

  umoId(slot: number): string {
    const at = slot * 16
    const b = this.ids
    let id = ""
    for (let i = 0; i < 16; i++) {
      id += hex[b[at + i]!]!
      if (i === 3 || i === 5 || i === 7 || i === 9) id += "-"
    }
    return id
  }

  /** Ids' order (UTF-8, as SQL's "C" collation orders them): negative when slot `a`'s comes first. */
  compare(a: number, b: number): number {
    for (let i = 0; i < 16; i++) {
      const d = this.ids[a * 16 + i]! - this.ids[b * 16 + i]!
      if (d !== 0) return d
    }
    return 0
  }

  /** Reads a canonical UUID into `scratch`; false for any other string. */
  private parse(umoId: string): boolean {
    if (!isMemoryId(umoId)) return false
    for (let i = 0, at = 0; i < 16; i++, at += 2) {
      if (at === 8 || at === 13 || at === 18 || at === 23) at++
      this.scratch[i] = (nibble(umoId.charCodeAt(at)) << 4) | nibble(umoId.charCodeAt(at + 1))
    }
    return true
  }

  private hash(): number {
    const w = this.scratchWords
    return mix(w[0]! ^ mix(w[1]! ^ mix(w[2]! ^ mix(w[3]!))))
  }

  /** Where the id in `scratch` is in the table, or -1. */
  private find(): number {
    const mask = this.table.length - 1
    const w = this.scratchWords
    for (let at = this.hash() & mask; ; at = (at + 1) & mask) {
      const held = this.table[at]!
      if (held === 0) return -1
      if (held === -1) continue
      const s = (held - 1) * 4
      if (
        this.words[s] === w[0] &&
        this.words[s + 1] === w[1] &&
        this.words[s + 2] === w[2] &&
        this.words[s + 3] === w[3]
      )
        return at
    }
  }

  /** Puts the slot (whose id is in `scratch`) in the table, which is made larger past half full. */
  private insert(slot: number): void {
    if ((this.tableTaken + 1) * 2 > this.table.length)
      this.rehash(tableSize(Math.max(this.room, this.liveCount)))
    const mask = this.table.length - 1
    let at = this.hash() & mask
    while (this.table[at]! > 0) at = (at + 1) & mask
    if (this.table[at] === 0) this.tableTaken++
    this.table[at] = slot + 1
  }

  private rehash(size: number): void {
    const saved = this.scratch.slice()
    this.table = new Int32Array(size)
    this.tableTaken = 0
    const mask = size - 1
    for (let slot = 0; slot < this.given; slot++) {
      if (this.live[slot] !== 1) continue
      this.scratch.set(this.ids.subarray(slot * 16, slot * 16 + 16))
      let at = this.hash() & mask
      while (this.table[at] !== 0) at = (at + 1) & mask
      this.table[at] = slot + 1
      this.tableTaken++
    }
    this.scratch.set(saved)
  }

  private reserve(slots: number): void {
    if (slots <= this.room) return
    this.room = Math.max(slots, this.room * 2)
    this.ids = grown(this.ids, this.room * 16)
    this.words = new Int32Array(this.ids.buffer)
    this.live = grown(this.live, this.room)
  }
}

/** A table of a power of two at least twice `memories` (and 128). */
const tableSize = (memories: number) => 2 ** Math.ceil(Math.log2(Math.max(128, memories * 2)))

const nibble = (code: number) => (code <= 57 ? code - 48 : code - 87)
