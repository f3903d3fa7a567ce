import { grown } from "./TypedArrays.js"

/**
 * The memories (slots) holding one value, ascending, in a typed array: what a `Set` of them was.
 * A value a million memories hold (their one user, their one source) made a set whose rehash, as it
 * doubled, held the thread for 74 ms at 500,000; here growing copies 4 bytes a memory. A removed
 * slot is marked (stored as `~slot`) and the marks are swept once they are half the list.
 */
export class SlotList {
  private slots = new Int32Array(4)
  private used = 0
  private live = 0

  /** Slots held. */
  get size(): number {
    return this.live
  }

  /** Bytes the list takes. */
  get bytes(): number {
    return this.slots.byteLength
  }

  add(slot: number): void {
    const at = this.place(slot)
    if (at < this.used && unmarked(this.slots[at]!) === slot) {
      if (this.slots[at]! < 0) {
        this.slots[at] = slot
        this.live++
      }
      return
    }
    this.slots = grown(this.slots, this.used + 1)
    // Slots come in ascending order as memories are added: the insertion is an append.
    if (at < this.used) this.slots.copyWithin(at + 1, at, this.used)
    this.slots[at] = slot
    this.used++
    this.live++
  }

  remove(slot: number): void {
    const at = this.place(slot)
    if (at === this.used || this.slots[at] !== slot) return
    this.slots[at] = ~slot
    this.live--
    if (this.live * 2 < this.used) this.sweep()
  }

  *[Symbol.iterator](): IterableIterator<number> {
    for (let at = 0; at < this.used; at++) {
      const slot = this.slots[at]!
      if (slot >= 0) yield slot
    }
  }

  /** Where `slot` is or would go: the first place not below it. */
  private place(slot: number): number {
    if (this.used === 0 || unmarked(this.slots[this.used - 1]!) < slot) return this.used
    let low = 0
    let high = this.used
    while (low < high) {
      const middle = (low + high) >>> 1
      if (unmarked(this.slots[middle]!) < slot) low = middle + 1
      else high = middle
    }
    return low
  }

  private sweep(): void {
    let kept = 0
    for (let at = 0; at < this.used; at++) if (this.slots[at]! >= 0) this.slots[kept++] = this.slots[at]!
    this.used = kept
  }
}

/** A slot as the list holds it, marked removed or not. */
const unmarked = (held: number) => (held < 0 ? ~held : held)
