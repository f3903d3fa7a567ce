/**
 * Mem0's v2 `filters` (search and get all) as UMO's `filters` expression (`@umo/memory`'s
 * `Filters`). The two grammars are nearly one — `AND` / `OR` over lists, `NOT`, an object is the
 * AND of its entries, a bare value is equality, `"*"` is "has a value", `in`, `ne` — so this only
 * renames and rewrites; the filtering itself, and every check of values, is the service's.
 *
 * - `user_id`, `agent_id`, `run_id` (and the camelCase `userId`, `agentId`, `runId` the JS docs
 *   show) go through as they are: UMO reads `run_id` as its `session_id`.
 * - `created_at`, `updated_at` and `timestamp` are all the memory's own time, UMO's `timestamp`
 *   (a version is never changed once stored, so its update time is its creation time); their
 *   values are read as `instantOf` reads them.
 * - `metadata` and `categories` go through: UMO's conditions on them are a superset of Mem0's
 *   (`{"categories": {"in": ["travel"]}}`, `{"categories": {"contains": "food"}}`).
 * - `app_id`, `expiration_date`, `keywords`, `text` and `memory_ids` name what UMO does not filter
 *   by: refused, naming the field.
 * @module
 */
import { Result } from "effect"
import { instantOf, invalid, isObject, type Mem0Refused, unsupported } from "./Mem0Fields.js"

/** A UMO filter expression, as JSON. */
export type UmoFilter = Readonly<Record<string, unknown>>

/** Mem0's entity fields as its clients write them, and the name UMO reads. */
export const entityFields: Readonly<Record<string, "user_id" | "agent_id" | "run_id">> = {
  user_id: "user_id",
  userId: "user_id",
  agent_id: "agent_id",
  agentId: "agent_id",
  run_id: "run_id",
  runId: "run_id"
}

const timeFields = new Set(["created_at", "updated_at", "timestamp", "createdAt", "updatedAt"])

const missing: Readonly<Record<string, string>> = {
  app_id: "UMO's scopes are user_id, agent_id and run_id",
  appId: "UMO's scopes are user_id, agent_id and run_id",
  expiration_date: "UMO leaves expired memories out of every read; it does not filter by the expiry",
  keywords: "UMO filters by scope, time and metadata; the query ranks by words and meaning",
  keywords_search: "UMO filters by scope, time and metadata; the query ranks by words and meaning",
  text: "UMO filters by scope, time and metadata; the query ranks by words and meaning",
  memory_ids: "read a memory by its id with get"
}

const timeOperators = new Set(["eq", "ne", "gt", "gte", "lt", "lte", "in"])

/** A condition on a time field, its values as RFC 3339. */
const timeCondition = (value: unknown, path: string): Result.Result<unknown, Mem0Refused> => {
  if (!isObject(value)) return instantOf(value, path)
  const entries: Array<[string, unknown]> = []
  for (const [op, operand] of Object.entries(value)) {
    if (!timeOperators.has(op))
      return Result.fail(invalid(`${path}.${op}`, "a time condition takes gt, gte, lt, lte, ne or in"))
    if (op === "in") {
      if (!Array.isArray(operand)) return Result.fail(invalid(`${path}.in`, "must be a list of times"))
      const times = Result.all(operand.map((t, i) => instantOf(t, `${path}.in.${i}`)))
      if (Result.isFailure(times)) return Result.fail(times.failure)
      entries.push([op, times.success])
    } else {
      const time = instantOf(operand, `${path}.${op}`)
      if (Result.isFailure(time)) return Result.fail(time.failure)
      entries.push([op, time.success])
    }
  }
  return Result.succeed(Object.fromEntries(entries))
}

/** The entries one Mem0 expression becomes: [UMO key, condition] pairs, ANDed. */
const expression = (value: unknown, path: string): Result.Result<UmoFilter, Mem0Refused> => {
  if (!isObject(value)) return Result.fail(invalid(path, "must be an object of conditions, AND, OR or NOT"))
  const parts: Array<readonly [string, unknown]> = []
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}.${key}`
    if (key === "AND" || key === "OR" || key === "NOT") {
      const list = key === "NOT" && !Array.isArray(inner) ? [inner] : inner
      if (!Array.isArray(list)) return Result.fail(invalid(at, "must be a list of filter expressions"))
      const translated = Result.all(
        list.map((e, i) => expression(e, key === "NOT" && !Array.isArray(inner) ? at : `${at}.${i}`))
      )
      if (Result.isFailure(translated)) return Result.fail(translated.failure)
      parts.push([key, key === "NOT" && !Array.isArray(inner) ? translated.success[0] : translated.success])
    } else if (entityFields[key] !== undefined) parts.push([entityFields[key], inner])
    else if (timeFields.has(key)) {
      const condition = timeCondition(inner, at)
      if (Result.isFailure(condition)) return Result.fail(condition.failure)
      parts.push(["timestamp", condition.success])
    } else if (key === "metadata") {
      if (!isObject(inner)) return Result.fail(invalid(at, "must be an object of metadata keys"))
      parts.push([key, inner])
    } else if (key === "categories") parts.push([key, inner])
    else if (missing[key] !== undefined) return Result.fail(unsupported(at, missing[key]))
    else
      return Result.fail(
        invalid(
          at,
          "unknown field: a filter names AND, OR, NOT, user_id, agent_id, run_id, created_at, updated_at, timestamp, categories or metadata"
        )
      )
  }
  return Result.succeed(andOf(parts.map(([key, condition]) => ({ [key]: condition }))))
}

/**
 * Expressions ANDed: one object when their keys differ (an object is the AND of its entries),
 * else an `AND` list, so `created_at` and `updated_at` (both UMO's `timestamp`) both hold.
 */
export const andOf = (expressions: ReadonlyArray<UmoFilter>): UmoFilter => {
  const keys = expressions.flatMap((e) => Object.keys(e))
  if (expressions.length === 1) return expressions[0]!
  return new Set(keys).size === keys.length ? Object.assign({}, ...expressions) : { AND: expressions }
}

/** Mem0's `filters` as UMO's expression; a field UMO lacks or cannot read is refused, naming it. */
export const translateFilters = (filters: unknown, path = "filters"): Result.Result<UmoFilter, Mem0Refused> =>
  expression(filters, path)

/**
 * Which memories a search or get all reads: its `filters`, and what Mem0 also takes beside them,
 * ANDed: top-level `metadata` (each key equal), the top-level ids the legacy clients send, and get
 * all's `start_date` and `end_date` (the memory's own time, inclusive). Undefined: every memory.
 */
export const selectionOf = (
  body: Readonly<Record<string, unknown>>
): Result.Result<UmoFilter | undefined, Mem0Refused> => {
  const parts: Array<UmoFilter> = []
  if (body["filters"] !== undefined && body["filters"] !== null) {
    const filters = translateFilters(body["filters"])
    if (Result.isFailure(filters)) return Result.fail(filters.failure)
    if (Object.keys(filters.success).length > 0) parts.push(filters.success)
  }
  if (body["metadata"] !== undefined && body["metadata"] !== null) {
    if (!isObject(body["metadata"])) return Result.fail(invalid("metadata", "must be an object"))
    parts.push({ metadata: body["metadata"] })
  }
  for (const field of ["user_id", "agent_id", "run_id"] as const)
    if (body[field] !== undefined && body[field] !== null) parts.push({ [field]: body[field] })
  for (const [field, op] of [
    ["start_date", "gte"],
    ["end_date", "lte"]
  ] as const) {
    if (body[field] === undefined || body[field] === null) continue
    const time = instantOf(body[field], field)
    if (Result.isFailure(time)) return Result.fail(time.failure)
    parts.push({ timestamp: { [op]: time.success } })
  }
  return Result.succeed(parts.length === 0 ? undefined : andOf(parts))
}
