/** BM25 parameters: those of the SQL search (Robertson and Zaragoza, 2009). */
const k1 = 1.2
const b = 0.75

/** One term's postings: the memory slots holding it, ascending, and the term's count in each. */
interface Postings {
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
 */
export class TextPostings {
  private readonly terms = new Map<string, Postings>()
  /** Each live memory's length in terms (its tsvector's). */
  private readonly lengths = new Map<number, number>()
  private totalLength = 0

  /** Live memories (the `documents` of BM25). */
  get documents(): number {
    return this.lengths.size
  }

  /** The average memory length, as the SQL search takes it (at least 1). */
  get averageLength(): number {
    return Math.max(this.totalLength / Math.max(this.lengths.size, 1), 1)
  }

  /** Adds a memory's terms; `slot` must be greater than every slot added before. */
  add(slot: number, terms: TermCounts, length: number): void {
    this.lengths.set(slot, length)
    this.totalLength += length
    for (const [lexeme, count] of terms) {
      let postings = this.terms.get(lexeme)
      if (postings === undefined) {
        postings = { slots: new Int32Array(4), counts: new Uint16Array(4), length: 0, documents: 0 }
        this.terms.set(lexeme, postings)
      }
      if (postings.length === postings.slots.length) {
        const slots = new Int32Array(postings.length * 2)
        slots.set(postings.slots)
        const counts = new Uint16Array(postings.length * 2)
        counts.set(postings.counts)
        postings.slots = slots
        postings.counts = counts
      }
      postings.slots[postings.length] = slot
      postings.counts[postings.length] = Math.min(count, 65_535)
      postings.length++
      postings.documents++
    }
  }

  /** Removes a memory: its terms stop counting at once. */
  remove(slot: number, terms: ReadonlyArray<string>): void {
    const length = this.lengths.get(slot)
    if (length === undefined) return
    this.lengths.delete(slot)
    this.totalLength -= length
    for (const lexeme of terms) {
      const postings = this.terms.get(lexeme)
      if (postings === undefined) continue
      postings.documents--
      if (postings.documents === 0) this.terms.delete(lexeme)
      else if (postings.documents * 2 < postings.length) this.compact(postings)
    }
  }

  /** The term's document frequency among live memories. */
  documentsWith(lexeme: string): number {
    return this.terms.get(lexeme)?.documents ?? 0
  }

  /** Calls `visit` with each live memory holding the term. */
  holders(lexeme: string, visit: (slot: number) => void): void {
    const postings = this.terms.get(lexeme)
    if (postings === undefined) return
    for (let i = 0; i < postings.length; i++) {
      const slot = postings.slots[i]!
      if (this.lengths.has(slot)) visit(slot)
    }
  }

  /**
   * A memory's BM25 score for the query's terms, or undefined when it holds none of them (the
   * SQL search gives such a memory no row).
   */
  score(slot: number, lexemes: ReadonlyArray<string>): number | undefined {
    const length = this.lengths.get(slot)
    if (length === undefined) return undefined
    const n = this.documents
    const average = this.averageLength
    let score: number | undefined
    for (const lexeme of lexemes) {
      const postings = this.terms.get(lexeme)
      if (postings === undefined) continue
      const count = countIn(postings, slot)
      if (count === 0) continue
      const df = postings.documents
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      score = (score ?? 0) + (idf * count * (k1 + 1)) / (count + k1 * (1 - b + (b * length) / average))
    }
    return score
  }

  private compact(postings: Postings): void {
    let kept = 0
    for (let i = 0; i < postings.length; i++) {
      if (!this.lengths.has(postings.slots[i]!)) continue
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
