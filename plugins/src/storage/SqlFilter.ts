import {
  anyMemory,
  type FilterCondition,
  type FilterField,
  type FilterValue,
  type MemoryFilter,
  type Selection
} from "@umo/core"
import type { SqlClient, Statement } from "effect/sql"

type Fragment = Statement.Fragment

/**
 * The SQL of a filter over the `memories` row under `alias`: `matchesFilter` (in @umo/core)
 * translated clause by clause, which the storage contract tests hold it to. Every condition is
 * made two-valued (`coalesce(…, false)`), so `NOT` means what it means in code even where a
 * column is null. Equality on scope fields and metadata uses the indexes (a scope's b-tree, the
 * metadata's GIN containment); strings order by code point (`COLLATE "C"`), as in code.
 */
export const filterSql = (sql: SqlClient.SqlClient, alias: string) => {
  const m = sql.literal(alias)
  const column = (field: Exclude<FilterField, { kind: "metadata" } | { kind: "categories" }>) =>
    sql.literal(`${alias}.${field.name === "timestamp" ? "content_time" : field.name}`)

  const time = (value: FilterValue) => sql`${new Date(Number(value)).toISOString()}::timestamptz`
  const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`
  const comparison = (op: "gt" | "gte" | "lt" | "lte") =>
    sql.literal({ gt: ">", gte: ">=", lt: "<", lte: "<=" }[op])

  /** A scope field or the source: text or null (a number or boolean equals none of them). */
  const text = (field: Fragment, condition: FilterCondition): Fragment => {
    switch (condition.op) {
      case "eq":
        return condition.value === null
          ? sql`${field} IS NULL`
          : typeof condition.value === "string"
            ? sql`${field} = ${condition.value}`
            : sql`false`
      case "in": {
        const named = condition.values.filter((v) => typeof v === "string")
        const inNamed = named.length === 0 ? sql`false` : sql`${field} IN ${sql.in(named)}`
        return condition.values.includes(null) ? sql`(${inNamed} OR ${field} IS NULL)` : inNamed
      }
      case "exists":
        return condition.value ? sql`${field} IS NOT NULL` : sql`${field} IS NULL`
      case "contains":
        return sql`strpos(${field}, ${condition.value}) > 0`
      case "icontains":
        return sql`strpos(lower(${field}), lower(${condition.value})) > 0`
      default:
        return typeof condition.value === "string"
          ? sql`${field} COLLATE "C" ${comparison(condition.op)} ${condition.value}`
          : sql`false`
    }
  }

  /** `timestamp` or `created_at`: always set, compared with instants (anything else matches nothing). */
  const instant = (field: Fragment, condition: FilterCondition): Fragment => {
    const isInstant = (v: FilterValue): v is number => typeof v === "number" && Number.isFinite(v)
    switch (condition.op) {
      case "eq":
        return isInstant(condition.value) ? sql`${field} = ${time(condition.value)}` : sql`false`
      case "in": {
        const times = condition.values.filter(isInstant).map(time)
        return times.length === 0 ? sql`false` : sql`${field} IN (${sql.csv(times)})`
      }
      case "exists":
        return condition.value ? sql`true` : sql`false`
      case "contains":
      case "icontains":
        return sql`false`
      default:
        return isInstant(condition.value)
          ? sql`${field} ${comparison(condition.op)} ${time(condition.value)}`
          : sql`false`
    }
  }

  /** One metadata key's value: any JSON of a metadata value, or absent. */
  const metadata = (key: string, condition: FilterCondition): Fragment => {
    const value = sql`${m}.metadata -> ${key}`
    const type = sql`jsonb_typeof(${value})`
    const equals = (wanted: FilterValue): Fragment =>
      wanted === null
        ? sql`coalesce(${type}, 'null') = 'null'`
        : typeof wanted === "string"
          ? sql`(${m}.metadata @> ${json({ [key]: wanted })} OR ${m}.metadata @> ${json({ [key]: [wanted] })})`
          : sql`${m}.metadata @> ${json({ [key]: wanted })}`
    switch (condition.op) {
      case "eq":
        return equals(condition.value)
      case "in":
        return condition.values.length === 0 ? sql`false` : sql.or(condition.values.map(equals))
      case "exists":
        return condition.value
          ? sql`coalesce(${type}, 'null') <> 'null'`
          : sql`coalesce(${type}, 'null') = 'null'`
      case "contains":
      case "icontains": {
        const holds = (t: Fragment) =>
          condition.op === "contains"
            ? sql`strpos(${t}, ${condition.value}) > 0`
            : sql`strpos(lower(${t}), lower(${condition.value})) > 0`
        return sql`(CASE ${type}
          WHEN 'string' THEN ${holds(sql`(${m}.metadata ->> ${key})`)}
          WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements_text(${value}) e(t) WHERE ${holds(sql`e.t`)})
          ELSE false END)`
      }
      default: {
        const op = comparison(condition.op)
        return typeof condition.value === "number"
          ? sql`(${type} = 'number' AND (${m}.metadata ->> ${key})::numeric ${op} ${condition.value}::numeric)`
          : typeof condition.value === "string"
            ? sql`(${type} = 'string' AND (${m}.metadata ->> ${key}) COLLATE "C" ${op} ${condition.value})`
            : sql`false`
      }
    }
  }

  /**
   * The memory's categories, a list: equal to a value when it holds it (as a metadata list is
   * read), present when it holds any, containing a text when one of them does.
   */
  const categories = (condition: FilterCondition): Fragment => {
    const list = sql`${m}.categories`
    switch (condition.op) {
      case "eq":
        return condition.value === null
          ? sql`${list} = '[]'::jsonb`
          : typeof condition.value === "string"
            ? sql`${list} @> ${json([condition.value])}`
            : sql`false`
      case "in": {
        const wanted = condition.values.filter((v) => typeof v === "string")
        const any = wanted.length === 0 ? sql`false` : sql.or(wanted.map((w) => sql`${list} @> ${json([w])}`))
        return condition.values.includes(null) ? sql`(${any} OR ${list} = '[]'::jsonb)` : any
      }
      case "exists":
        return condition.value ? sql`${list} <> '[]'::jsonb` : sql`${list} = '[]'::jsonb`
      case "contains":
      case "icontains":
        return sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(${list}) c(t) WHERE ${
          condition.op === "contains"
            ? sql`strpos(c.t, ${condition.value}) > 0`
            : sql`strpos(lower(c.t), lower(${condition.value})) > 0`
        })`
      default:
        return sql`false`
    }
  }

  const where = (filter: MemoryFilter): Fragment => {
    switch (filter.kind) {
      case "and":
        return sql.and(filter.filters.map(where))
      case "or":
        return filter.filters.length === 0 ? sql`false` : sql.or(filter.filters.map(where))
      case "not":
        return sql`NOT ${where(filter.filter)}`
      case "condition": {
        const { field } = filter
        const clause =
          field.kind === "metadata"
            ? metadata(field.key, filter)
            : field.kind === "categories"
              ? categories(filter)
              : field.kind === "time"
                ? instant(column(field), filter)
                : text(column(field), filter)
        return sql`coalesce((${clause}), false)`
      }
    }
  }

  /**
   * The rows of a selection: the filter's, current ones only unless superseded ones are asked for,
   * and unexpired ones only unless expired ones are.
   */
  const selected = (selection: Selection): Fragment => {
    const filter = where(selection.filter ?? anyMemory)
    const current = selection.includeSuperseded ? sql`true` : sql`${m}.superseded_by IS NULL`
    const live = selection.includeExpired ? sql`true` : unexpired
    return sql`(${current} AND ${live} AND ${filter})`
  }
  /** Not past its expiry: the only clock is the database's, the same for every process. */
  const unexpired = sql`(${m}.expires_at IS NULL OR ${m}.expires_at > now())`

  return { where, selected, unexpired }
}
