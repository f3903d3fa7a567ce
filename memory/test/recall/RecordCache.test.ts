import type { RankingFacts, RecalledMemory } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { RecordCache } from "../../src/recall/RecordCache.js"

const ids = ["a", "b", "c", "d", "e", "f"]

/** A record as far as the cache reads it: its id, content and the field a supersession changes. */
const record = (umo_id: string, superseded_by: string | null, size = 10) =>
  ({ umo_id, content: "x".repeat(size), superseded_by, expires_at: null }) as unknown as RecalledMemory

const view = (umo_id: string, superseded_by: string | null): RankingFacts => ({
  umo_id,
  timestamp: "2025-01-01T00:00:00.000Z",
  entities: [],
  superseded_by,
  facts: []
})

const successor = fc.option(fc.constantFrom(...ids), { nil: null })

describe("RecordCache", () => {
  it("hands back a kept record only when this search's view holds it unchanged", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.constantFrom(...ids),
            account: fc.constantFrom("acct-1", "acct-2"),
            kept: successor,
            // What the index shows now: deleted (undefined), or superseded by one (or none).
            seen: fc.option(successor, { nil: undefined })
          }),
          { maxLength: 40 }
        ),
        (steps) => {
          const cache = new RecordCache()
          for (const { id, account, kept, seen } of steps) {
            cache.keep(account, [record(id, kept)])
            const facts = new Map(seen === undefined ? [] : [[id, view(id, seen)]])
            const found = cache.current(account, [id], facts)
            const unchanged = seen !== undefined && seen === kept
            expect(found.has(id)).toBe(unchanged)
            // A record that failed once is gone: the next search reads it again.
            if (!unchanged) expect(cache.current(account, [id], new Map([[id, view(id, kept)]])).size).toBe(0)
            // Another account's record of the same id is never handed back.
            const other = account === "acct-1" ? "acct-2" : "acct-1"
            const theirs = cache.current(other, [id], facts).get(id)
            if (theirs !== undefined) expect(theirs).not.toBe(found.get(id))
          }
        }
      )
    )
  })

  it("keeps no document, nothing that expires, and drops the least recently used past its limits", () => {
    const cache = new RecordCache()
    const facts = new Map<string, RankingFacts>()
    cache.keep("acct", [record("doc", null, 60_000)])
    facts.set("doc", view("doc", null))
    expect(cache.current("acct", ["doc"], facts).size).toBe(0)
    // Nor one that expires: its expiry may move (a refreshed TTL) without a chain entry.
    cache.keep("acct", [{ ...record("brief", null), expires_at: "2999-01-01T00:00:00.000Z" }])
    facts.set("brief", view("brief", null))
    expect(cache.current("acct", ["brief"], facts).size).toBe(0)
    const many = Array.from({ length: 5_001 }, (_, i) => `m${i}`)
    for (const id of many) facts.set(id, view(id, null))
    cache.keep(
      "acct",
      many.map((id) => record(id, null))
    )
    expect(cache.current("acct", ["m0"], facts).size).toBe(0)
    expect(cache.current("acct", ["m1", "m5000"], facts).size).toBe(2)
  })
})
