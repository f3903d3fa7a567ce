import { grown } from "./TypedArrays.js"

/** Term numbers a block of `TextPostings.held` takes: the first 4,096 (16 kB), each next twice the last's, up to 4 MB. */
const firstBlockTerms = 1 << 12
const blockTerms = 1 << 20

/** BM25 parameters: those of the SQL search (Robertson and Zaragoza, 2009). */
const k1 = 1.2
const b = 0.75

/** One term's postings: the memory slots holding it, ascending, and the term's count in each. */
interface Postings {
  readonly lexeme: string
  slots: Int32Array
  counts: Uint16Array
  length: number
  /** Live memories holding the term: its document frequency. */
  documents: number
}

/** A memory's terms as the store's `search_postings` hold them: stemmed term and count. */
export type TermCounts = ReadonlyArray<readonly [lexeme: string, occurrences: number]>

/**
 * The account's full-text postings in memory: for each stemmed term (PostgreSQL's `english`
 * configuration, as the store's `search_postings` rows hold them) the memories that hold it, and
 * the account's totals, so BM25 scores here are the SQL search's. Memory slots only grow, so each
 * term's postings stay sorted by slot and a memory's count of a term is a binary search away; a
 * removed memory's postings are skipped, and dropped once they are half of a term's.
 *
 * What it keeps by memory is in typed arrays, not objects: its length, and its terms as numbers
 * in shared blocks. A million memories' terms as arrays of strings were some 25 million objects,
 * which every full garbage collection had to mark: pauses of half a second and more.
 */
export class TextPostings {
  private readonly ids = new Map<string, number>()
  /** Each term's postings, by the term's number (`ids`); undefined once no memory holds it. */
  private readonly postings: Array<Postings | undefined> = []
  /** Each memory's length in terms (its tsvector's), by slot; -1 for none (removed, or never added). */
  private lengths = new Int32Array(1_024).fill(-1)
  /** Each memory's term numbers: how many, and where they start in which block of `held`, by slot. */
  private termCounts = new Int32Array(1_024)
  private termBlocks = new Int32Array(1_024)
  private termStarts = new Int32Array(1_024)
  /**
   * The memories' term numbers, in blocks growing to `blockTerms` (a memory's all in one; a memory
   * with more gets a block of its own). One array grown by doubling copied 64 MB into 128 MB at
   * 800,000 memories, in a step that held the thread for 380 ms.
   */
  private readonly held: Array<Int32Array> = []
  private heldUsed = 0
  /** Slots given so far: `add`'s slots are each greater than the last. */
  private slots = 0
  private live = 0
  /** What the postings' slots and counts take (6 bytes a place). */
  private postingsBytes = 0
  private totalLength = 0

  /** Live memories (the `documents` of BM25). */
  get documents(): number {
    return this.live
  }

  /** The average memory length, as the SQL search takes it (at least 1). */
  get averageLength(): number {
    return Math.max(this.totalLength / Math.max(this.live, 1), 1)
  }

  /** Bytes its arrays take, postings included (each term's `Postings` and map entry about 200 more). */
  get bytes(): number {
    return (
      this.lengths.byteLength +
      3 * this.termCounts.byteLength +
      this.held.reduce((sum, block) => sum + block.byteLength, 0) +
      this.postingsBytes +
      200 * this.ids.size
    )
  }

  /** Adds a memory's terms; `slot` must be greater than every slot added before. */
  add(slot: number, terms: TermCounts, length: number): void {
    if (slot < this.slots) throw new Error(`slot ${slot} added after slot ${this.slots - 1}`)
    this.lengths = grown(this.lengths, slot + 1, -1)
    this.termCounts = grown(this.termCounts, slot + 1)
    this.termBlocks = grown(this.termBlocks, slot + 1)
    this.termStarts = grown(this.termStarts, slot + 1)
    if (this.held.length === 0 || this.heldUsed + terms.length > this.held.at(-1)!.length) {
      const last = this.held.at(-1)?.length ?? firstBlockTerms / 2
      this.held.push(new Int32Array(Math.max(Math.min(blockTerms, 2 * last), terms.length)))
      this.heldUsed = 0
    }
    const block = this.held.at(-1)!
    this.termCounts[slot] = terms.length
    this.termBlocks[slot] = this.held.length - 1
    this.termStarts[slot] = this.heldUsed
    this.lengths[slot] = length
    this.live++
    this.totalLength += length
    let at = this.heldUsed
    for (const [lexeme, count] of terms) {
      let id = this.ids.get(lexeme)
      let postings = id === undefined ? undefined : this.postings[id]
      if (id === undefined || postings === undefined) {
        id = this.postings.length
        postings = { lexeme, slots: new Int32Array(4), counts: new Uint16Array(4), length: 0, documents: 0 }
        this.ids.set(lexeme, id)
        this.postings.push(postings)
        this.postingsBytes += 24
      }
      if (postings.length === postings.slots.length) {
        this.postingsBytes += 6 * postings.length
        postings.slots = grown(postings.slots, postings.length + 1)
        postings.counts = grown(postings.counts, postings.length + 1)
      }
      postings.slots[postings.length] = slot
      postings.counts[postings.length] = Math.min(count, 65_535)
      postings.length++
      postings.documents++
      block[at++] = id
    }
    this.slots = slot + 1
    this.heldUsed = at
  }

  /** Removes a memory: its terms stop counting at once. */
  remove(slot: number): void {
    if (!this.holds(slot)) return
    this.live--
    this.totalLength -= this.lengths[slot]!
    this.lengths[slot] = -1
    const block = this.held[this.termBlocks[slot]!]!
    const start = this.termStarts[slot]!
    for (let at = start; at < start + this.termCounts[slot]!; at++) {
      const id = block[at]!
      const postings = this.postings[id]!
      postings.documents--
      // A term no live memory holds goes; its number is not given again.
      if (postings.documents === 0) {
        this.ids.delete(postings.lexeme)
        this.postings[id] = undefined
        this.postingsBytes -= 6 * postings.slots.length
      } else if (postings.documents * 2 < postings.length) this.compact(postings)
    }
  }

  /** The term's document frequency among live memories. */
  documentsWith(lexeme: string): number {
    return this.postingsOf(lexeme)?.documents ?? 0
  }

  /** Calls `visit` with each live memory holding the term. */
  holders(lexeme: string, visit: (slot: number) => void): void {
    const postings = this.postingsOf(lexeme)
    if (postings === undefined) return
    for (let i = 0; i < postings.length; i++) {
      const slot = postings.slots[i]!
      if (this.holds(slot)) visit(slot)
    }
  }

  /**
   * A memory's BM25 score for the query's terms, or undefined when it holds none of them (the
   * SQL search gives such a memory no row).
   */
  score(slot: number, lexemes: ReadonlyArray<string>): number | undefined {
    if (!this.holds(slot)) return undefined
    const length = this.lengths[slot]!
    const n = this.documents
    const average = this.averageLength
    let score: number | undefined
    for (const lexeme of lexemes) {
      const postings = this.postingsOf(lexeme)
      if (postings === undefined) continue
      const count = countIn(postings, slot)
      if (count === 0) continue
      const df = postings.documents
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      score = (score ?? 0) + (idf * count * (k1 + 1)) / (count + k1 * (1 - b + (b * length) / average))
    }
    return score
  }

  private holds(slot: number): boolean {
    return slot < this.slots && this.lengths[slot]! !== -1
  }

  private postingsOf(lexeme: string): Postings | undefined {
    const id = this.ids.get(lexeme)
    return id === undefined ? undefined : this.postings[id]
  }

  private compact(postings: Postings): void {
    let kept = 0
    for (let i = 0; i < postings.length; i++) {
      if (!this.holds(postings.slots[i]!)) continue
      postings.slots[kept] = postings.slots[i]!
      postings.counts[kept] = postings.counts[i]!
      kept++
    }
    postings.length = kept
  }
}

/** The count of a memory in a term's postings (0 when it does not hold the term). */
const countIn = (postings: Postings, slot: number): number => {
  let low = 0
  let high = postings.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const at = postings.slots[middle]!
    if (at === slot) return postings.counts[middle]!
    if (at < slot) low = middle + 1
    else high = middle - 1
  }
  return 0
}
