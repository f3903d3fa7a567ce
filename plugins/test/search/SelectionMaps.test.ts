import { type FilterableMemory, type MemoryFilter, matchesFilter } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SelectionMaps } from "../../src/search/SelectionMaps.js"

/** Times on a coarse grid, so that equal times and boundaries are common. */
const base = Date.parse("2026-01-01T00:00:00.000Z")
const timeAt = (step: number) => new Date(base + step * 60_000).toISOString()

const memory = fc.record({
  user_id: fc.constantFrom(null, "ana", "bo"),
  agent_id: fc.constantFrom(null, "helper"),
  session_id: fc.constant(null),
  source: fc.constantFrom(null, "chat"),
  timestamp: fc.oneof(fc.integer({ min: 0, max: 30 }).map(timeAt), fc.constant("not a time")),
  created_at: fc.integer({ min: 0, max: 30 }).map(timeAt),
  metadata: fc.constant({}),
  categories: fc.constant([])
}) satisfies fc.Arbitrary<FilterableMemory>

const timeCondition: fc.Arbitrary<MemoryFilter> = fc.record({
  kind: fc.constant("condition" as const),
  field: fc.record({
    kind: fc.constant("time" as const),
    name: fc.constantFrom("timestamp" as const, "created_at" as const)
  }),
  op: fc.constantFrom("eq" as const, "gt" as const, "gte" as const, "lt" as const, "lte" as const),
  value: fc.oneof(
    fc.integer({ min: -1, max: 31 }).map((step) => base + step * 60_000),
    fc.constant(base + 30_000),
    fc.constant("2026-01-01"),
    fc.constant(null)
  )
})

const scopeCondition: fc.Arbitrary<MemoryFilter> = fc.record({
  kind: fc.constant("condition" as const),
  field: fc.constant({ kind: "text" as const, name: "user_id" as const }),
  op: fc.constant("eq" as const),
  value: fc.constantFrom("ana", "bo")
})

const filter: fc.Arbitrary<MemoryFilter> = fc.letrec<{ filter: MemoryFilter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    timeCondition,
    scopeCondition,
    fc.record({ kind: fc.constant("and" as const), filters: fc.array(tie("filter"), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("or" as const), filters: fc.array(tie("filter"), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("not" as const), filter: tie("filter") })
  )
})).filter

/** Memories added (a prefix of them as a bulk load), some removed again: the live ones by slot. */
const filled = (memories: ReadonlyArray<FilterableMemory>, bulk: number, removed: ReadonlySet<number>) => {
  const maps = new SelectionMaps()
  for (const [slot, m] of memories.entries()) maps.add(slot, m, slot < bulk)
  for (const slot of removed) if (slot < memories.length) maps.remove(slot, memories[slot]!)
  const live = new Map(memories.flatMap((m, slot) => (removed.has(slot) ? [] : [[slot, m] as const])))
  return { maps, live }
}

const admitted = (live: ReadonlyMap<number, FilterableMemory>, f: MemoryFilter) =>
  [...live].filter(([, m]) => matchesFilter(m, f)).map(([slot]) => slot)

describe("SelectionMaps", () => {
  const arbitraries = [
    fc.array(memory, { maxLength: 60 }),
    fc.nat({ max: 60 }),
    fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 20 }).map((s) => new Set(s))
  ] as const

  it("narrows a filter to a superset of the live memories it admits, whatever was added, bulk loaded or removed", () => {
    fc.assert(
      fc.property(...arbitraries, filter, (memories, bulk, removed, f) => {
        const { maps, live } = filled(memories, bulk, removed)
        const narrowed = maps.narrowed(f)
        if (narrowed === undefined) return
        const slots = [...narrowed.slots()]
        expect(new Set(slots).size).toBe(narrowed.size)
        expect(slots.length).toBe(narrowed.size)
        for (const slot of admitted(live, f)) expect(slots).toContain(slot)
      }),
      { numRuns: 500 }
    )
  })

  it("narrows a comparison of a time to exactly the live memories it admits", () => {
    fc.assert(
      fc.property(...arbitraries, timeCondition, (memories, bulk, removed, f) => {
        const { maps, live } = filled(memories, bulk, removed)
        expect([...(maps.narrowed(f)?.slots() ?? [])].sort((a, b) => a - b)).toEqual(admitted(live, f))
      }),
      { numRuns: 500 }
    )
  })

  it("lists only the smaller part of an AND: a wide time range beside a narrow scope", () => {
    const maps = new SelectionMaps()
    for (let slot = 0; slot < 1_000; slot++)
      maps.add(slot, {
        user_id: slot % 100 === 0 ? "ana" : null,
        agent_id: null,
        session_id: null,
        source: null,
        timestamp: timeAt(slot),
        created_at: timeAt(slot),
        metadata: {},
        categories: []
      })
    const narrowed = maps.narrowed({
      kind: "and",
      filters: [
        {
          kind: "condition",
          field: { kind: "time", name: "timestamp" },
          op: "gte",
          value: base + 500 * 60_000
        },
        { kind: "condition", field: { kind: "text", name: "user_id" }, op: "eq", value: "ana" }
      ]
    })
    expect(narrowed?.size).toBe(10)
    const later = maps.narrowed({
      kind: "condition",
      field: { kind: "time", name: "timestamp" },
      op: "gt",
      value: base + 990 * 60_000
    })
    expect([...(later?.slots() ?? [])].sort((a, b) => a - b)).toEqual([
      991, 992, 993, 994, 995, 996, 997, 998, 999
    ])
  })
})
