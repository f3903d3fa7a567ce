import { isUmoId, makeUmoId } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

describe("umo ids", () => {
  it("are lowercase UUIDv7 values", () => {
    const id = makeUmoId(Date.UTC(2026, 0, 1))
    expect(isUmoId(id)).toBe(true)
    expect(id[14]).toBe("7")
    expect(isUmoId(id.toUpperCase())).toBe(false)
    expect(isUmoId("not-an-id")).toBe(false)
  })

  it("sort in the order they were made, even within one millisecond (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 2, max: 50 }), (t, n) => {
        const ids = Array.from({ length: n }, () => makeUmoId(t))
        expect([...ids].sort()).toEqual(ids)
      }),
      { numRuns: 100 }
    )
  })

  it("sort by their time (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 1, max: 2 ** 40 }), (t, dt) => {
        expect(makeUmoId(t) < makeUmoId(t + dt)).toBe(true)
      }),
      { numRuns: 200 }
    )
  })
})
