import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SlotList } from "../../src/search/SlotList.js"

describe("SlotList", () => {
  it("holds what a set of the same adds and removes holds, ascending (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ add: fc.boolean(), slot: fc.nat(60) }), { maxLength: 300 }),
        (steps) => {
          const list = new SlotList()
          const model = new Set<number>()
          for (const { add, slot } of steps) {
            if (add) {
              list.add(slot)
              model.add(slot)
            } else {
              list.remove(slot)
              model.delete(slot)
            }
            expect(list.size).toBe(model.size)
          }
          expect([...list]).toEqual([...model].sort((a, b) => a - b))
        }
      ),
      { numRuns: 300 }
    )
  })

  it("appends slots that come in ascending order, and sweeps removed ones once they are half", () => {
    const list = new SlotList()
    for (let slot = 0; slot < 100_000; slot++) list.add(slot)
    const full = list.bytes
    for (let slot = 0; slot < 100_000; slot += 3) list.remove(slot)
    expect(list.size).toBe(66_666)
    expect([...list].slice(0, 4)).toEqual([1, 2, 4, 5])
    expect(list.bytes).toBe(full)
  })
})
