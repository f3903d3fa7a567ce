import { type FilterableMemory, matchesFilter } from "@umo/core"
import { FilterExpression, toMemoryFilter } from "@umo/memory"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { selectionOf, translateFilters } from "../../src/mem0/Mem0Filters.js"

const translated = (filters: unknown) => {
  const result = translateFilters(filters)
  if (Result.isFailure(result)) throw new Error(result.failure.detail)
  return result.success
}
const refusedWith = (filters: unknown) => {
  const result = translateFilters(filters)
  if (Result.isSuccess(result)) throw new Error(`accepted: ${JSON.stringify(result.success)}`)
  return result.failure
}

describe("Mem0's v2 filters as UMO's expression", () => {
  it("keeps the grammar both share, and reads camelCase ids and Mem0's time fields", () => {
    expect(
      translated({
        AND: [{ userId: "alice" }, { OR: [{ agent_id: { in: ["a", "b"] } }, { runId: "*" }] }],
        NOT: { run_id: { ne: "r1" } }
      })
    ).toEqual({
      AND: [{ user_id: "alice" }, { OR: [{ agent_id: { in: ["a", "b"] } }, { run_id: "*" }] }],
      NOT: { run_id: { ne: "r1" } }
    })
    expect(translated({ created_at: { gte: "2024-07-01", lte: "2024-07-31T12:00:00" } })).toEqual({
      timestamp: { gte: "2024-07-01", lte: "2024-07-31T12:00:00Z" }
    })
    expect(translated({ timestamp: 1700000000 })).toEqual({ timestamp: "2023-11-14T22:13:20.000Z" })
    expect(translated({ NOT: [{ user_id: "a" }, { user_id: "b" }] })).toEqual({
      NOT: [{ user_id: "a" }, { user_id: "b" }]
    })
    expect(translated({ metadata: { topic: "home" } })).toEqual({ metadata: { topic: "home" } })
  })

  it("passes categories through to UMO's categories filter", () => {
    expect(translated({ AND: [{ user_id: "u" }, { categories: { in: ["travel"] } }] })).toEqual({
      AND: [{ user_id: "u" }, { categories: { in: ["travel"] } }]
    })
    expect(translated({ categories: { contains: "food" } })).toEqual({ categories: { contains: "food" } })
  })

  it("ANDs two conditions that become one field of UMO's", () => {
    expect(translated({ created_at: { gte: "2024-01-01" }, updated_at: { lt: "2025-01-01" } })).toEqual({
      AND: [{ timestamp: { gte: "2024-01-01" } }, { timestamp: { lt: "2025-01-01" } }]
    })
    expect(translated({ user_id: "a", userId: "b" })).toEqual({ AND: [{ user_id: "a" }, { user_id: "b" }] })
  })

  it("refuses what UMO does not have, and what it cannot read, naming the field", () => {
    expect(refusedWith({ AND: [{ user_id: "u" }, { expiration_date: { gt: "2030-01-01" } }] })).toMatchObject(
      {
        status: 422,
        detail: expect.stringMatching(/^not supported by UMO's Mem0 API: filters\.AND\.1\.expiration_date /)
      }
    )
    expect(refusedWith({ app_id: "shop" }).detail).toMatch(/: filters\.app_id /)
    expect(refusedWith({ keywords: { contains: "x" } }).detail).toMatch(/: filters\.keywords /)
    expect(refusedWith({ memory_ids: ["x"] }).detail).toMatch(/: filters\.memory_ids /)
    expect(refusedWith({ colour: "red" }).detail).toMatch(
      /^invalid request body: filters\.colour: unknown field/
    )
    expect(refusedWith({ created_at: { after: "2024-01-01" } }).detail).toMatch(/filters\.created_at\.after/)
    expect(refusedWith({ created_at: "last week" }).detail).toMatch(
      /filters\.created_at: must be Unix seconds/
    )
    expect(refusedWith({ OR: { user_id: "a" } }).detail).toMatch(/filters\.OR: must be a list/)
    expect(refusedWith(["user_id"]).detail).toMatch(/^invalid request body: filters: must be an object/)
  })

  it("adds search's and get all's other constraints: metadata, legacy ids, start and end dates", () => {
    const selection = selectionOf({
      filters: { user_id: "u" },
      metadata: { topic: "home" },
      agent_id: "helper",
      start_date: "2024-01-01",
      end_date: "2024-12-31"
    })
    expect(Result.getOrThrow(selection)).toEqual({
      AND: [
        { user_id: "u" },
        { metadata: { topic: "home" } },
        { agent_id: "helper" },
        { timestamp: { gte: "2024-01-01" } },
        { timestamp: { lte: "2024-12-31" } }
      ]
    })
    expect(Result.getOrThrow(selectionOf({}))).toBeUndefined()
    expect(Result.getOrThrow(selectionOf({ filters: {} }))).toBeUndefined()
  })
})

// A small world of memories: three ids per scope (or none) and days of January 2024.
const ids = ["a", "b", "c"] as const
const idOrNone = fc.constantFrom<string | null>(...ids, null)
const day = fc.integer({ min: 1, max: 28 })
const iso = (d: number, hour = 0) =>
  `2024-01-${String(d).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00.000Z`

const memory: fc.Arbitrary<FilterableMemory> = fc
  .record({ user_id: idOrNone, agent_id: idOrNone, session_id: idOrNone, day, hour: fc.constantFrom(0, 12) })
  .map(({ day: d, hour, ...scope }) => ({
    ...scope,
    source: null,
    timestamp: iso(d, hour),
    created_at: iso(d, hour),
    metadata: {},
    categories: []
  }))

const id = fc.constantFrom(...ids)
const entityKey = fc.constantFrom("user_id", "userId", "agent_id", "agentId", "run_id", "runId")
const entityCondition = fc.oneof(
  id,
  fc.constant("*"),
  id.map((v) => ({ eq: v })),
  id.map((v) => ({ ne: v })),
  fc.uniqueArray(id, { minLength: 1, maxLength: 3 }).map((values) => ({ in: values }))
)
/** A time as Mem0's clients write it: a date, a date-time without an offset, or Unix seconds. */
const time = fc.oneof(
  day.map((d) => iso(d).slice(0, 10)),
  fc.tuple(day, fc.constantFrom(0, 6, 12)).map(([d, h]) => iso(d, h).slice(0, 19)),
  fc.tuple(day, fc.constantFrom(0, 12)).map(([d, h]) => Date.parse(iso(d, h)) / 1000)
)
const timeCondition = fc.oneof(
  time,
  fc.tuple(fc.constantFrom("gt", "gte", "lt", "lte", "ne"), time).map(([op, t]) => ({ [op]: t })),
  fc.uniqueArray(time, { minLength: 1, maxLength: 3 }).map((times) => ({ in: times }))
)
const leaf = fc.oneof(
  fc.tuple(entityKey, entityCondition).map(([k, v]) => ({ [k]: v })),
  fc
    .tuple(fc.constantFrom("created_at", "updated_at", "timestamp"), timeCondition)
    .map(([k, v]) => ({ [k]: v }))
)
const { expression } = fc.letrec((tie) => ({
  expression: fc.oneof(
    { maxDepth: 4, depthIdentifier: "filter" },
    leaf,
    fc.tuple(leaf, leaf).map(([x, y]) => ({ ...x, ...y })),
    fc.array(tie("expression"), { minLength: 1, maxLength: 3 }).map((list) => ({ AND: list })),
    fc.array(tie("expression"), { minLength: 1, maxLength: 3 }).map((list) => ({ OR: list })),
    tie("expression").map((e) => ({ NOT: e })),
    fc.array(tie("expression"), { minLength: 1, maxLength: 2 }).map((list) => ({ NOT: list }))
  )
}))

type Mem0Filter = Readonly<Record<string, unknown>>
type Time = string | number

/** Mem0's meaning of a filter, written from its documentation, apart from any of UMO's code. */
const mem0Matches = (m: FilterableMemory, filter: Mem0Filter): boolean =>
  Object.entries(filter).every(([key, condition]) => {
    const list = (c: unknown) => (Array.isArray(c) ? c : [c]) as Array<Mem0Filter>
    if (key === "AND") return list(condition).every((e) => mem0Matches(m, e))
    if (key === "OR") return list(condition).some((e) => mem0Matches(m, e))
    if (key === "NOT") return !list(condition).some((e) => mem0Matches(m, e))
    if (["created_at", "updated_at", "timestamp"].includes(key)) {
      const at = (t: Time) =>
        typeof t === "number"
          ? t * 1000
          : Date.parse(t.length === 19 ? `${t}Z` : t.length === 10 ? `${t}T00:00:00Z` : t)
      const value = Date.parse(m.timestamp)
      if (typeof condition !== "object") return value === at(condition as Time)
      const [[op, operand]] = Object.entries(condition as object) as [[string, Time & Array<Time>]]
      if (op === "in") return operand.some((t) => at(t) === value)
      const wanted = at(operand)
      return {
        gt: value > wanted,
        gte: value >= wanted,
        lt: value < wanted,
        lte: value <= wanted,
        ne: value !== wanted
      }[op]!
    }
    const field =
      { user_id: "user_id", userId: "user_id", agent_id: "agent_id", agentId: "agent_id" }[key] ??
      "session_id"
    const value = m[field as "user_id" | "agent_id" | "session_id"]
    if (condition === "*") return value !== null
    if (typeof condition === "string") return value === condition
    const c = condition as {
      readonly eq?: string
      readonly ne?: string
      readonly in?: ReadonlyArray<string | null>
    }
    if ("eq" in c) return value === c.eq
    if ("ne" in c) return value !== c.ne
    return c.in!.includes(value)
  })

describe("a translated filter takes the memories Mem0's filter takes", () => {
  it("for any nesting of AND, OR and NOT over scopes and times (fast-check)", () => {
    const decode = Schema.decodeUnknownSync(FilterExpression)
    fc.assert(
      fc.property(expression, fc.array(memory, { minLength: 1, maxLength: 12 }), (filter, memories) => {
        const umo = toMemoryFilter(decode(translated(filter)))
        for (const m of memories)
          expect(matchesFilter(m, umo), JSON.stringify({ filter, m })).toBe(mem0Matches(m, filter))
      }),
      { numRuns: 500 }
    )
  })
})
