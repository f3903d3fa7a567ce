/**
 * The memories (slots) of an account's index that hold each scope and source value and each
 * metadata value: what narrows a filter to a few memories before any of them is scored.
 * @module
 */
import type { FilterableMemory, MemoryFilter, MetadataValue } from "@umo/core"

const scopeFields = ["user_id", "agent_id", "session_id", "source"] as const
type ScopeField = (typeof scopeFields)[number]

/** Adds an item to (or removes it from) the set of `key` in `map`; a set left empty goes. */
const member = <K, T>(map: Map<K, Set<T>>, key: K, item: T, holds: boolean) => {
  let items = map.get(key)
  if (items === undefined) {
    if (!holds) return
    items = new Set()
    map.set(key, items)
  }
  if (holds) items.add(item)
  else {
    items.delete(item)
    if (items.size === 0) map.delete(key)
  }
}

/**
 * The values a metadata value is equal to, as `matchesFilter`'s `eq` reads it, by their JSON:
 * itself (not null), or each string of a list.
 */
const metadataValues = (value: MetadataValue): ReadonlyArray<string> =>
  value === null ? [] : Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : [JSON.stringify(value)]

/** The scope, source and metadata maps of one account's memories. */
export class SelectionMaps {
  private readonly scopes = new Map<ScopeField, Map<string, Set<number>>>(
    scopeFields.map((field) => [field, new Map()])
  )
  /** For each metadata key, the memories holding each value (a list: each of its strings), by the value's JSON. */
  private readonly metadata = new Map<string, Map<string, Set<number>>>()

  /** Lists a memory under its scope, source and metadata values. */
  add(slot: number, memory: FilterableMemory): void {
    this.list(slot, memory, true)
  }

  /** Takes a memory off the lists `add` put it on. */
  remove(slot: number, memory: FilterableMemory): void {
    this.list(slot, memory, false)
  }

  private list(slot: number, memory: FilterableMemory, holds: boolean): void {
    for (const field of scopeFields) {
      const value = memory[field]
      if (value !== null) member(this.scopes.get(field)!, value, slot, holds)
    }
    for (const [key, value] of Object.entries(memory.metadata)) {
      let values = this.metadata.get(key)
      if (values === undefined) {
        if (!holds) continue
        values = new Map()
        this.metadata.set(key, values)
      }
      for (const held of metadataValues(value)) member(values, held, slot, holds)
      if (values.size === 0) this.metadata.delete(key)
    }
  }

  /**
   * A superset of the memories a filter admits, from the scope and source maps, or undefined when
   * the filter does not pin any of those fields (so every memory may pass).
   */
  narrowed(filter: MemoryFilter): ReadonlySet<number> | undefined {
    switch (filter.kind) {
      case "and": {
        let smallest: ReadonlySet<number> | undefined
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
          for (const slot of slots) union.add(slot)
        }
        return union
      }
      case "not":
        return undefined
      case "condition": {
        // Equal to a value, or to one of several: those holding it. (Equal to null holds for an
        // absent field too, which no map lists.)
        const values = filter.op === "eq" ? [filter.value] : filter.op === "in" ? filter.values : undefined
        if (values === undefined || values.includes(null)) return undefined
        const field = filter.field
        if (field.kind === "time" || field.kind === "categories") return undefined
        const [map, keys] =
          field.kind === "text"
            ? [this.scopes.get(field.name)!, values.filter((v) => typeof v === "string")]
            : [
                this.metadata.get(field.key) ?? new Map<string, Set<number>>(),
                values.map((v) => JSON.stringify(v))
              ]
        if (keys.length === 1) return map.get(keys[0]!) ?? new Set()
        const union = new Set<number>()
        for (const key of keys) for (const slot of map.get(key) ?? []) union.add(slot)
        return union
      }
    }
  }
}
