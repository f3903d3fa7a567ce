import { canonicalJson } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

// Rebuilds a JSON value with every object's keys in reverse order.
const reverseKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)])
    )
  }
  return value
}

const json = fc.jsonValue({ noUnicodeString: false })

describe("canonicalJson", () => {
  it("follows RFC 8785: sorted keys, no whitespace, shortest numbers", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: { z: 1e21, y: 0.1 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":0.1,"z":1e+21}}'
    )
    expect(canonicalJson("é\u0000")).toBe('"é\\u0000"')
  })

  it("rejects values JSON cannot hold", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow()
    expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow()
  })

  it("does not depend on key order (property)", () => {
    fc.assert(
      fc.property(json, (value) => canonicalJson(value) === canonicalJson(reverseKeys(value))),
      { numRuns: 200 }
    )
  })

  it("round-trips through JSON.parse and is a fixed point (property)", () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value)
        // JSON has no -0, so compare with what plain JSON makes of the value.
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        expect(canonicalJson(JSON.parse(text))).toBe(text)
      }),
      { numRuns: 200 }
    )
  })
})
