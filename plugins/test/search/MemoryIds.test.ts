import { compareCodePoints } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MemoryIds } from "../../src/search/MemoryIds.js"

describe("MemoryIds", () => {
  it("finds what a map of the same adds and removes finds, across table growth and re-adds (property)", () => {
    // Few distinct ids, so that removals and adds of an id removed before are frequent.
    const id = fc.nat(400).map((n) => `0190a000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`)
    const step = fc.record({ add: fc.boolean(), id })
    fc.assert(
      fc.property(fc.array(step, { maxLength: 600 }), fc.nat(300), (steps, room) => {
        const ids = new MemoryIds(room)
        const model = new Map<string, number>()
        const seen = new Set<string>()
        let given = 0
        for (const { add, id } of steps) {
          seen.add(id)
          if (add && !model.has(id)) {
            expect(ids.add(id)).toBe(given)
            model.set(id, given++)
          } else if (add) expect(() => ids.add(id)).toThrow(/held already/)
          else if (model.has(id)) {
            ids.remove(model.get(id)!)
            model.delete(id)
          }
        }
        expect(ids.size).toBe(model.size)
        expect(ids.slots).toBe(given)
        for (const id of seen) expect(ids.slotOf(id)).toBe(model.get(id))
        expect([...ids.liveSlots()]).toEqual([...model.values()].sort((a, b) => a - b))
        for (const [id, slot] of model) expect(ids.umoId(slot)).toBe(id)
        const live = [...model.entries()]
        for (let i = 1; i < live.length; i++) {
          const [[a, slotA], [b, slotB]] = [live[i - 1]!, live[i]!]
          expect(Math.sign(ids.compare(slotA, slotB))).toBe(Math.sign(compareCodePoints(a, b)))
        }
      }),
      { numRuns: 200 }
    )
  })

  it("refuses an id that is not a UUID in lower case, and never finds one", () => {
    const ids = new MemoryIds()
    const good = "0190a000-0000-7000-8000-00000000abcd"
    for (const id of ["", "x", good.toUpperCase(), `${good}0`, good.replace(/-/g, "")])
      expect(() => ids.add(id)).toThrow(/not a UUID/)
    expect(ids.size).toBe(0)
    expect(ids.slotOf("not a uuid")).toBeUndefined()
    expect(ids.slotOf(good.toUpperCase())).toBeUndefined()
  })

  it("finds every id as its table grows well past its room, and none of those removed", () => {
    const ids = new MemoryIds()
    const id = (i: number) => `0190a000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`
    for (let i = 0; i < 20_000; i++) ids.add(id(i))
    for (let i = 0; i < 20_000; i += 2) ids.remove(ids.slotOf(id(i))!)
    for (let i = 0; i < 20_000; i++) expect(ids.slotOf(id(i))).toBe(i % 2 === 0 ? undefined : i)
    expect(ids.capacity).toBeGreaterThanOrEqual(20_000)
  })
})
