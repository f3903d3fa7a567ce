/**
 * The memories (slots) of an account's index that hold each scope and source value and each
 * metadata value, and its memories in the order of each time: what narrows a filter to a few
 * memories before any of them is scored.
 * @module
 */
import type { FilterableMemory, FilterCondition, MemoryFilter, MetadataValue } from "@umo/core"
import { SlotList } from "./SlotList.js"
import { TimeOrder } from "./TimeOrder.js"

const scopeFields = ["user_id", "agent_id", "session_id", "source"] as const
type ScopeField = (typeof scopeFields)[number]

/**
 * The values a metadata value is equal to, as `matchesFilter`'s `eq` reads it, by their JSON:
 * itself (not null), or each string of a list.
 */
const metadataValues = (value: MetadataValue): ReadonlyArray<string> =>
  value === null ? [] : Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : [JSON.stringify(value)]

/**
 * Memories (slots) a filter may admit, each once: counted before they are listed, since listing a
 * time range costs as much as the memories it holds.
 */
export interface Narrowed {
  readonly size: number
  readonly slots: () => Iterable<number>
}

const listed = (slots: { readonly size: number } & Iterable<number>): Narrowed => ({
  size: slots.size,
  slots: () => slots
})

/** The scope, source, metadata and time maps of one account's memories. */
export class SelectionMaps {
  private readonly scopes = new Map<ScopeField, Map<string, SlotList>>(
    scopeFields.map((field) => [field, new Map()])
  )
  /** For each metadata key, the memories holding each value (a list: each of its strings), by the value's JSON. */
  private readonly metadata = new Map<string, Map<string, SlotList>>()
  /** The memories in the order of each time a filter can name. */
  private readonly times = { timestamp: new TimeOrder(), created_at: new TimeOrder() }

  /** What the lists of the maps take (`SlotList.bytes`), and a list's object and map entry (about 150 bytes). */
  private listBytes = 0

  /** Bytes the time orders and the maps' lists take. */
  get bytes(): number {
    return this.times.timestamp.bytes + this.times.created_at.bytes + this.listBytes
  }

  /**
   * Lists a memory under its scope, source and metadata values and at its times. A bulk load
   * (`bulk`) appends to the time orders, and `settle` (or the first range asked) sorts them once.
   */
  add(slot: number, memory: FilterableMemory, bulk = false): void {
    this.list(slot, memory, true)
    for (const field of ["timestamp", "created_at"] as const)
      this.times[field].add(slot, Date.parse(memory[field]), bulk)
  }

  /** Takes a memory off the lists `add` put it on. */
  remove(slot: number, memory: FilterableMemory): void {
    this.list(slot, memory, false)
    for (const field of ["timestamp", "created_at"] as const)
      this.times[field].remove(slot, Date.parse(memory[field]))
  }

  /** Puts the time orders of a bulk load in order. */
  settle(): void {
    this.times.timestamp.settle()
    this.times.created_at.settle()
  }

  /** Adds a slot to (or removes it from) the list of `key` in `map`; a list left empty goes. */
  private member(map: Map<string, SlotList>, key: string, slot: number, holds: boolean): void {
    let slots = map.get(key)
    if (slots === undefined) {
      if (!holds) return
      slots = new SlotList()
      map.set(key, slots)
      this.listBytes += 150 + slots.bytes
    }
    const before = slots.bytes
    if (holds) slots.add(slot)
    else slots.remove(slot)
    this.listBytes += slots.bytes - before
    if (slots.size === 0) {
      map.delete(key)
      this.listBytes -= 150 + slots.bytes
    }
  }

  private list(slot: number, memory: FilterableMemory, holds: boolean): void {
    for (const field of scopeFields) {
      const value = memory[field]
      if (value !== null) this.member(this.scopes.get(field)!, value, slot, holds)
    }
    for (const [key, value] of Object.entries(memory.metadata)) {
      let values = this.metadata.get(key)
      if (values === undefined) {
        if (!holds) continue
        values = new Map()
        this.metadata.set(key, values)
      }
      for (const held of metadataValues(value)) this.member(values, held, slot, holds)
      if (values.size === 0) this.metadata.delete(key)
    }
  }

  /**
   * A superset of the memories a filter admits, from the scope, source and metadata maps and the
   * time orders, or undefined when the filter pins none of those fields (so every memory may pass).
   */
  narrowed(filter: MemoryFilter): Narrowed | undefined {
    switch (filter.kind) {
      case "and": {
        // The smallest part: a time range is listed only if it is the one chosen.
        let smallest: Narrowed | undefined
        for (const part of filter.filters) {
          const slots = this.narrowed(part)
          if (slots !== undefined && (smallest === undefined || slots.size < smallest.size)) smallest = slots
        }
        return smallest
      }
      case "or": {
        if (filter.filters.length === 0) return undefined
        const union = new Set<number>()
        for (const part of filter.filters) {
          const slots = this.narrowed(part)
          if (slots === undefined) return undefined
          for (const slot of slots.slots()) union.add(slot)
        }
        return listed(union)
      }
      case "not":
        return undefined
      case "condition": {
        const field = filter.field
        if (field.kind === "time") return this.inTime(this.times[field.name], filter)
        // Equal to a value, or to one of several: those holding it. (Equal to null holds for an
        // absent field too, which no map lists.)
        const values = filter.op === "eq" ? [filter.value] : filter.op === "in" ? filter.values : undefined
        if (values === undefined || values.includes(null)) return undefined
        if (field.kind === "categories") return undefined
        const [map, keys] =
          field.kind === "text"
            ? [this.scopes.get(field.name)!, values.filter((v) => typeof v === "string")]
            : [
                this.metadata.get(field.key) ?? new Map<string, SlotList>(),
                values.map((v) => JSON.stringify(v))
              ]
        if (keys.length === 1) return listed(map.get(keys[0]!) ?? new Set<number>())
        const union = new Set<number>()
        for (const key of keys) for (const slot of map.get(key) ?? []) union.add(slot)
        return listed(union)
      }
    }
  }

  /**
   * The memories a comparison of a time with a number (milliseconds) may admit: a range of the
   * time's order. (A time compared with anything else holds for none; `in`, `exists` and the
   * rest are left to the filter.)
   */
  private inTime(order: TimeOrder, condition: FilterCondition): Narrowed | undefined {
    if (
      condition.op === "in" ||
      condition.op === "exists" ||
      condition.op === "contains" ||
      condition.op === "icontains"
    )
      return undefined
    const value = condition.value
    if (typeof value !== "number") return listed(new Set())
    const range =
      condition.op === "eq"
        ? order.range(value, true, value, true)
        : condition.op === "gt" || condition.op === "gte"
          ? order.range(value, condition.op === "gte", Number.POSITIVE_INFINITY, true)
          : order.range(Number.NEGATIVE_INFINITY, true, value, condition.op === "lte")
    return { size: range.to - range.from, slots: () => order.slotsIn(range) }
  }
}
