/**
 * An account's memories (slots) in the order of one of their times, so that the memories of a
 * time range are found by two binary searches instead of testing every memory against the filter.
 * @module
 */

import { grown } from "./TypedArrays.js"

/** Where `(time, slot)` goes among pairs in order: the first place whose pair is not before it. */
const lowerBound = (times: Float64Array, slots: Int32Array, size: number, time: number, slot: number) => {
  let low = 0
  let high = size
  while (low < high) {
    const middle = (low + high) >>> 1
    const t = times[middle]!
    if (t < time || (t === time && slots[middle]! < slot)) low = middle + 1
    else high = middle
  }
  return low
}

/** The slots of one time field, ordered by time then slot, in two parallel arrays (12 bytes a memory). */
export class TimeOrder {
  private times = new Float64Array(1_024)
  private slots = new Int32Array(1_024)
  private size = 0
  /** Whether a bulk load appended out of order (see `settle`). */
  private unsettled = false

  /** Bytes the arrays take. */
  get bytes(): number {
    return this.times.byteLength + this.slots.byteLength
  }

  /** Memories held. */
  get count(): number {
    return this.size
  }

  /**
   * Adds a memory at its time (a time that is not a number is left out: no range holds it). A
   * bulk load appends, and `settle` sorts once: inserting each of a million memories in place
   * would move half the arrays each time.
   */
  add(slot: number, time: number, bulk: boolean): void {
    if (Number.isNaN(time)) return
    this.times = grown(this.times, this.size + 1)
    this.slots = grown(this.slots, this.size + 1)
    const at = bulk ? this.size : lowerBound(this.times, this.slots, this.size, time, slot)
    if (bulk && at > 0) {
      const last = this.times[at - 1]!
      if (last > time || (last === time && this.slots[at - 1]! > slot)) this.unsettled = true
    }
    this.times.copyWithin(at + 1, at, this.size)
    this.slots.copyWithin(at + 1, at, this.size)
    this.times[at] = time
    this.slots[at] = slot
    this.size++
  }

  /** Removes a memory `add` put at `time` (nothing when it is not there). */
  remove(slot: number, time: number): void {
    if (Number.isNaN(time)) return
    // Out of order after a bulk load: looked for in place (sorting for each removal would cost more).
    const at = this.unsettled
      ? this.slots.subarray(0, this.size).indexOf(slot)
      : lowerBound(this.times, this.slots, this.size, time, slot)
    if (at === -1 || at === this.size || this.slots[at] !== slot || this.times[at] !== time) return
    this.times.copyWithin(at, at + 1, this.size)
    this.slots.copyWithin(at, at + 1, this.size)
    this.size--
  }

  /** Puts a bulk load in order. */
  settle(): void {
    if (!this.unsettled) return
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => this.times[a]! - this.times[b]! || this.slots[a]! - this.slots[b]!
    )
    this.times = Float64Array.from(order, (i) => this.times[i]!)
    this.slots = Int32Array.from(order, (i) => this.slots[i]!)
    this.unsettled = false
  }

  /**
   * The positions `[from, to)` of the memories whose time is above `after` (or at it, with
   * `afterIncluded`) and below `before` (or at it, with `beforeIncluded`).
   */
  range(
    after: number,
    afterIncluded: boolean,
    before: number,
    beforeIncluded: boolean
  ): { readonly from: number; readonly to: number } {
    this.settle()
    const from = this.firstAbove(after, afterIncluded)
    const to = Math.max(from, this.firstAbove(before, !beforeIncluded))
    return { from, to }
  }

  /** The slots at positions `[from, to)` of a `range`. */
  slotsIn(range: { readonly from: number; readonly to: number }): Int32Array {
    return this.slots.slice(range.from, range.to)
  }

  /** The first position whose time is above `time`, or at it too when `included`. */
  private firstAbove(time: number, included: boolean): number {
    let low = 0
    let high = this.size
    while (low < high) {
      const middle = (low + high) >>> 1
      const t = this.times[middle]!
      if (t < time || (!included && t === time)) low = middle + 1
      else high = middle
    }
    return low
  }
}
