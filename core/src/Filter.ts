/**
 * Which memories a call reads: a filter over a memory's scope, source, times and metadata, as the
 * stores apply it inside their indexes. The API's `filters` expression and its shorthand fields
 * (`@umo/memory`'s `Filters`) compile to this tree; `matchesFilter` is its meaning, written once
 * in plain code — every store's translation (SQL, an in-process index) must agree with it.
 *
 * Semantics, for every field:
 * - `eq v`: the value is `v`; a list of strings is `v` when it holds `v`; `eq null` holds for a
 *   field that is null or absent.
 * - `in [v…]`: `eq` one of them.
 * - `gt`, `gte`, `lt`, `lte`: both numbers, both strings (compared by code point) or both times;
 *   false for any other pair.
 * - `contains s` / `icontains s`: a string value holds `s` (icontains: both folded by `foldCase`);
 *   a list holds a string that does.
 * - `exists`: the field has a value (not null, not absent).
 * `ne` and `nin` are `not` of `eq` and `in`: they hold for an absent field.
 * @module
 */
import type { MetadataValue } from "./Scope.js"

/** The fields a filter can name. */
export type FilterField =
  | { readonly kind: "text"; readonly name: "user_id" | "agent_id" | "session_id" | "source" }
  | { readonly kind: "time"; readonly name: "timestamp" | "created_at" }
  | { readonly kind: "metadata"; readonly key: string }
  /** The categories the memory is filed under: a list, as a metadata list is read. */
  | { readonly kind: "categories" }

/** A value a condition compares with: times as milliseconds since the epoch. */
export type FilterValue = string | number | boolean | null

export type FilterCondition =
  | {
      readonly op: "eq" | "gt" | "gte" | "lt" | "lte"
      readonly value: FilterValue
    }
  | { readonly op: "in"; readonly values: ReadonlyArray<FilterValue> }
  | { readonly op: "contains" | "icontains"; readonly value: string }
  | { readonly op: "exists"; readonly value: boolean }

export type MemoryFilter =
  | { readonly kind: "and"; readonly filters: ReadonlyArray<MemoryFilter> }
  | { readonly kind: "or"; readonly filters: ReadonlyArray<MemoryFilter> }
  | { readonly kind: "not"; readonly filter: MemoryFilter }
  | ({ readonly kind: "condition"; readonly field: FilterField } & FilterCondition)

/** Every memory. */
export const anyMemory: MemoryFilter = { kind: "and", filters: [] }

/** `a AND b`, flattened, with `anyMemory` dropped. */
export const allOf = (filters: ReadonlyArray<MemoryFilter>): MemoryFilter => {
  const parts = filters.flatMap((f) => (f.kind === "and" ? f.filters : [f]))
  return parts.length === 1 ? parts[0]! : { kind: "and", filters: parts }
}

/** Whether a filter admits every memory (an empty AND). */
export const isAnyMemory = (filter: MemoryFilter): boolean =>
  filter.kind === "and" && filter.filters.length === 0

/** What a filter reads of a memory. */
export interface FilterableMemory {
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly source: string | null
  /** ISO 8601. */
  readonly timestamp: string
  /** ISO 8601. */
  readonly created_at: string
  readonly metadata: Readonly<Record<string, MetadataValue>>
  readonly categories: ReadonlyArray<string>
}

/** Compares two strings by Unicode code point (the order of their UTF-8 bytes, as SQL's "C" collation). */
export const compareCodePoints = (a: string, b: string): number => {
  const x = [...a]
  const y = [...b]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (d !== 0) return d
  }
  return x.length - y.length
}

type Present = string | number | boolean | ReadonlyArray<string>

/**
 * Lower case, a code point at a time, as PostgreSQL's `lower()` folds it: without the context
 * rules of `toLowerCase` (a final sigma stays σ) and one code point for one ("İ" is "i").
 */
export const foldCase = (text: string): string =>
  Array.from(text, (c) => {
    const lower = c.toLowerCase()
    return lower.length === c.length ? lower : String.fromCodePoint(lower.codePointAt(0)!)
  }).join("")

const fieldValue = (memory: FilterableMemory, field: FilterField): Present | null => {
  switch (field.kind) {
    case "text":
      return memory[field.name]
    case "time":
      return Date.parse(memory[field.name])
    case "metadata":
      return Object.hasOwn(memory.metadata, field.key) ? (memory.metadata[field.key] ?? null) : null
    case "categories":
      return memory.categories.length === 0 ? null : memory.categories
  }
}

const equals = (value: Present | null, wanted: FilterValue): boolean =>
  wanted === null
    ? value === null
    : Array.isArray(value)
      ? typeof wanted === "string" && value.includes(wanted)
      : value === wanted

const ordered = (value: Present | null, wanted: FilterValue): number | undefined =>
  typeof value === "number" && typeof wanted === "number"
    ? value - wanted
    : typeof value === "string" && typeof wanted === "string"
      ? compareCodePoints(value, wanted)
      : undefined

const holds = (value: Present | null, condition: FilterCondition): boolean => {
  switch (condition.op) {
    case "eq":
      return equals(value, condition.value)
    case "in":
      return condition.values.some((v) => equals(value, v))
    case "exists":
      return (value !== null) === condition.value
    case "contains":
    case "icontains": {
      const fold = condition.op === "icontains" ? foldCase : (s: string) => s
      const needle = fold(condition.value)
      const texts = Array.isArray(value) ? value : typeof value === "string" ? [value] : []
      return texts.some((t) => fold(t).includes(needle))
    }
    default: {
      const order = ordered(value, condition.value)
      if (order === undefined) return false
      return condition.op === "gt"
        ? order > 0
        : condition.op === "gte"
          ? order >= 0
          : condition.op === "lt"
            ? order < 0
            : order <= 0
    }
  }
}

/** Whether a memory is among those a filter admits. */
export const matchesFilter = (memory: FilterableMemory, filter: MemoryFilter): boolean => {
  switch (filter.kind) {
    case "and":
      return filter.filters.every((f) => matchesFilter(memory, f))
    case "or":
      return filter.filters.some((f) => matchesFilter(memory, f))
    case "not":
      return !matchesFilter(memory, filter.filter)
    case "condition":
      return holds(fieldValue(memory, filter.field), filter)
  }
}
