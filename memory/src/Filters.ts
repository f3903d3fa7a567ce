/**
 * Which memories a read takes, as callers write it: the shorthand fields (`user_id`, `agent_id`,
 * `session_id`, `metadata`, `after`, `before`, `include_superseded`) and a full `filters`
 * expression, at least as expressive as Mem0's v2 filters:
 *
 * ```json
 * {"AND": [{"user_id": "alice"},
 *          {"OR": [{"metadata": {"topic": {"in": ["travel", "work"]}}}, {"source": {"icontains": "mail"}}]},
 *          {"NOT": {"timestamp": {"lt": "2024-01-01"}}}]}
 * ```
 *
 * An object is the AND of its entries: `AND` and `OR` over a list of expressions, `NOT` over one
 * (or a list: none of them), and conditions on `user_id`, `agent_id`, `session_id` (`run_id`, as
 * Mem0 names it), `source`, `timestamp`, `created_at`, `categories` (the memory's list: equal to a
 * name when it holds it) and `metadata` keys. A condition is a value
 * (equality), a list (any of them), `"*"` (the field has a value), or an object of operators
 * (all of them): `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in`, `nin`, `contains`, `icontains`,
 * `exists`. Their meaning is core's `matchesFilter`. At most 10 levels deep and 100 conditions.
 * @module
 */
import { allOf, type FilterField, type FilterValue, type MemoryFilter } from "@umo/core"
import { Schema } from "effect"
import { MetadataRecord, parseTimestamp, ScopeId, Text, Timestamp } from "./Fields.js"

/** Deepest nesting of AND, OR and NOT, and most conditions, in one expression. */
export const filterLimits = { depth: 10, conditions: 100, values: 100 } as const

const unknownOperator =
  "unknown operator: the operators are eq, ne, gt, gte, lt, lte, in, nin, contains, icontains and exists"
const unknownField =
  "unknown field: a filter names AND, OR, NOT, user_id, agent_id, session_id, run_id, source, timestamp, created_at, categories or metadata"

const OperandText = Text(1_000)
const Scalar = Schema.Union([OperandText, Schema.Finite, Schema.Boolean, Schema.Null])
const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).check(
    Schema.isBetweenLength(1, filterLimits.values, {
      message: `a list holds 1 to ${filterLimits.values} values`
    })
  )
/** Any value, as a condition: a field that has one. */
const anyValue = Schema.Literal("*")

const operators = <Eq extends Schema.Top, Order extends Schema.Top>(eq: Eq, order: Order, text: boolean) =>
  Schema.Struct({
    eq: Schema.optionalKey(eq),
    ne: Schema.optionalKey(eq),
    gt: Schema.optionalKey(order),
    gte: Schema.optionalKey(order),
    lt: Schema.optionalKey(order),
    lte: Schema.optionalKey(order),
    in: Schema.optionalKey(listOf(eq)),
    nin: Schema.optionalKey(listOf(eq)),
    ...(text
      ? { contains: Schema.optionalKey(OperandText), icontains: Schema.optionalKey(OperandText) }
      : {}),
    exists: Schema.optionalKey(Schema.Boolean)
  })
    .annotate({ messageUnexpectedKey: unknownOperator })
    .check(Schema.isMinProperties(1, { message: "an object of operators names at least one" }))

/** A condition on a scope field or the source (text, or null when unset). */
const TextCondition = Schema.Union([
  Schema.NullOr(OperandText),
  listOf(Schema.NullOr(OperandText)),
  operators(Schema.NullOr(OperandText), OperandText, true)
]).annotate({ description: 'a value, a list of values (any of), "*" (has a value), or operators' })

/** A condition on `timestamp` or `created_at` (ISO 8601). */
const TimeCondition = Schema.Union([anyValue, Timestamp, operators(Timestamp, Timestamp, false)]).annotate({
  description: 'a time (ISO 8601), "*", or operators over times'
})

/** A condition on one metadata key. */
const ValueCondition = Schema.Union([
  Scalar,
  listOf(Scalar),
  operators(Scalar, Schema.Union([OperandText, Schema.Finite]), true)
]).annotate({ description: 'a value, a list of values (any of), "*" (has a value), or operators' })

/** A filter expression as sent. */
export interface FilterExpression {
  readonly AND?: ReadonlyArray<FilterExpression>
  readonly OR?: ReadonlyArray<FilterExpression>
  readonly NOT?: FilterExpression | ReadonlyArray<FilterExpression>
  readonly user_id?: unknown
  readonly agent_id?: unknown
  readonly session_id?: unknown
  readonly run_id?: unknown
  readonly source?: unknown
  readonly timestamp?: unknown
  readonly created_at?: unknown
  readonly categories?: unknown
  readonly metadata?: Readonly<Record<string, unknown>>
}

const expressions = Schema.Array(Schema.suspend((): Schema.Codec<FilterExpression> => Filter))
  .check(Schema.isBetweenLength(1, filterLimits.conditions, { message: "a list holds 1 to 100 expressions" }))
  .annotate({ identifier: "MemoryFilterList" })

/** Depth and size: where the first expression past a limit is, and which limit. */
const withinLimits = (
  expression: FilterExpression
): { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string } | undefined => {
  let conditions = 0
  const walk = (
    e: FilterExpression,
    path: ReadonlyArray<PropertyKey>,
    depth: number
  ): { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string } | undefined => {
    if (depth > filterLimits.depth)
      return { path, issue: `nests deeper than ${filterLimits.depth} levels of AND, OR and NOT` }
    for (const [key, value] of Object.entries(e)) {
      if (key === "AND" || key === "OR" || key === "NOT") {
        const list: ReadonlyArray<FilterExpression> = Array.isArray(value) ? value : [value]
        for (const [i, inner] of list.entries()) {
          const found = walk(inner, Array.isArray(value) ? [...path, key, i] : [...path, key], depth + 1)
          if (found) return found
        }
      } else {
        conditions += key === "metadata" ? Object.keys(value as object).length : 1
        if (conditions > filterLimits.conditions)
          return {
            path: [...path, key],
            issue: `more than ${filterLimits.conditions} conditions in one filter`
          }
      }
    }
    return undefined
  }
  return walk(expression, [], 1)
}

// Keys are optional without a null branch: in a filter, null is a value (`{"user_id": null}`: no user).
const Filter: Schema.Codec<FilterExpression> = Schema.Struct({
  AND: Schema.optionalKey(expressions),
  OR: Schema.optionalKey(expressions),
  NOT: Schema.optionalKey(
    Schema.Union([Schema.suspend((): Schema.Codec<FilterExpression> => Filter), expressions])
  ),
  user_id: Schema.optionalKey(TextCondition),
  agent_id: Schema.optionalKey(TextCondition),
  session_id: Schema.optionalKey(TextCondition),
  run_id: Schema.optionalKey(TextCondition.annotate({ description: "Mem0's name for session_id" })),
  source: Schema.optionalKey(TextCondition),
  timestamp: Schema.optionalKey(TimeCondition),
  created_at: Schema.optionalKey(TimeCondition),
  categories: Schema.optionalKey(TextCondition),
  metadata: Schema.optionalKey(MetadataRecord(ValueCondition))
}).annotate({ identifier: "MemoryFilter", messageUnexpectedKey: unknownField }) as never

/** A whole filter expression: its grammar, and its depth and size limits. */
export const FilterExpression = Filter.check(
  Schema.makeFilter((expression: FilterExpression) => withinLimits(expression))
).annotate({
  description:
    "a filter expression: AND / OR / NOT over conditions on user_id, agent_id, session_id (run_id), source, " +
    "timestamp, created_at, categories and metadata keys, with eq, ne, gt, gte, lt, lte, in, nin, contains, icontains, exists " +
    `and "*"; at most ${filterLimits.depth} levels deep and ${filterLimits.conditions} conditions`
})

/** Metadata to match: each key equal to its value, or to one of a list of values. */
export const MetadataMatch = MetadataRecord(Schema.Union([Scalar, listOf(Scalar)]))
  .check(Schema.isMaxProperties(32, { message: "at most 32 keys" }))
  .annotate({ description: "each key equal to its value, or to any of a list of values (AND across keys)" })

/** The fields that choose which memories a read takes (every one optional: none means all current). */
export const SelectionFields = {
  user_id: Schema.optional(ScopeId).annotate({ description: "only this end user's memories" }),
  agent_id: Schema.optional(ScopeId).annotate({ description: "only this agent's memories" }),
  session_id: Schema.optional(ScopeId).annotate({ description: "only this conversation's memories" }),
  metadata: Schema.optional(MetadataMatch),
  after: Schema.optional(Timestamp).annotate({ description: "only memories whose timestamp is later" }),
  before: Schema.optional(Timestamp).annotate({ description: "only memories whose timestamp is earlier" }),
  include_superseded: Schema.optional(Schema.Boolean).annotate({
    description: "also memories a newer one superseded (default false)"
  }),
  filters: Schema.optional(FilterExpression)
}

/** The selection fields as decoded. */
export interface SelectionRequest {
  readonly user_id?: string | undefined
  readonly agent_id?: string | undefined
  readonly session_id?: string | undefined
  readonly metadata?: Readonly<Record<string, FilterValue | ReadonlyArray<FilterValue>>> | undefined
  readonly after?: string | undefined
  readonly before?: string | undefined
  readonly include_superseded?: boolean | undefined
  readonly filters?: FilterExpression | undefined
}

const textField = (name: "user_id" | "agent_id" | "session_id" | "source"): FilterField => ({
  kind: "text",
  name
})
const timeField = (name: "timestamp" | "created_at"): FilterField => ({ kind: "time", name })

/** A time as the filter compares it (validated by the schema). */
const instant = (value: unknown): FilterValue =>
  value === null ? null : parseTimestamp(String(value))!.getTime()

const condition = (field: FilterField, value: unknown): MemoryFilter => {
  const at = (v: unknown): FilterValue => (field.kind === "time" ? instant(v) : (v as FilterValue))
  if (value === "*") return { kind: "condition", field, op: "exists", value: true }
  if (Array.isArray(value)) return { kind: "condition", field, op: "in", values: value.map(at) }
  if (value === null || typeof value !== "object")
    return { kind: "condition", field, op: "eq", value: at(value) }
  return allOf(
    Object.entries(value).map(([op, operand]): MemoryFilter => {
      switch (op) {
        case "ne":
          return { kind: "not", filter: condition(field, { eq: operand }) }
        case "nin":
          return { kind: "not", filter: condition(field, { in: operand }) }
        case "in":
          return { kind: "condition", field, op: "in", values: (operand as Array<unknown>).map(at) }
        case "contains":
        case "icontains":
          return { kind: "condition", field, op, value: String(operand) }
        case "exists":
          return { kind: "condition", field, op: "exists", value: Boolean(operand) }
        default:
          return {
            kind: "condition",
            field,
            op: op as "eq" | "gt" | "gte" | "lt" | "lte",
            value: at(operand)
          }
      }
    })
  )
}

/** A decoded expression as core's filter tree. */
export const toMemoryFilter = (expression: FilterExpression): MemoryFilter =>
  allOf(
    Object.entries(expression).flatMap(([key, value]): Array<MemoryFilter> => {
      switch (key) {
        case "AND":
          return [allOf((value as ReadonlyArray<FilterExpression>).map(toMemoryFilter))]
        case "OR":
          return [{ kind: "or", filters: (value as ReadonlyArray<FilterExpression>).map(toMemoryFilter) }]
        case "NOT": {
          const list = Array.isArray(value) ? value : [value]
          return [{ kind: "not", filter: { kind: "or", filters: list.map(toMemoryFilter) } }]
        }
        case "metadata":
          return Object.entries(value as object).map(([k, v]) => condition({ kind: "metadata", key: k }, v))
        case "timestamp":
        case "created_at":
          return [condition(timeField(key), value)]
        case "run_id":
          return [condition(textField("session_id"), value)]
        case "categories":
          return [condition({ kind: "categories" }, value)]
        default:
          return [condition(textField(key as "user_id" | "agent_id" | "session_id" | "source"), value)]
      }
    })
  )

/**
 * A shorthand field's condition: equal to its value, or to any of a list. Literally: `"*"` is an id
 * or a value like any other there (a user may be called "*"), never the expression's "has a
 * value", which would take every user's memories, and erase them with `DELETE ?user_id=*`.
 */
const literally = (value: unknown) => (Array.isArray(value) ? { in: value } : { eq: value })

/** The selection a request's fields make: every shorthand and the expression, all together. */
export const selectionOf = (
  request: SelectionRequest & { readonly source?: string | undefined }
): { readonly filter: MemoryFilter; readonly includeSuperseded: boolean } => {
  const shorthand = {
    ...(request.user_id === undefined ? {} : { user_id: literally(request.user_id) }),
    ...(request.agent_id === undefined ? {} : { agent_id: literally(request.agent_id) }),
    ...(request.session_id === undefined ? {} : { session_id: literally(request.session_id) }),
    ...(request.source === undefined ? {} : { source: literally(request.source) }),
    ...(request.metadata === undefined
      ? {}
      : {
          metadata: Object.fromEntries(
            Object.entries(request.metadata).map(([key, value]) => [key, literally(value)])
          )
        })
  } as FilterExpression
  const times: Array<MemoryFilter> = [
    ...(request.after === undefined ? [] : [condition(timeField("timestamp"), { gt: request.after })]),
    ...(request.before === undefined ? [] : [condition(timeField("timestamp"), { lt: request.before })])
  ]
  return {
    filter: allOf([
      toMemoryFilter(shorthand),
      ...times,
      ...(request.filters === undefined ? [] : [toMemoryFilter(request.filters)])
    ]),
    includeSuperseded: request.include_superseded ?? false
  }
}
