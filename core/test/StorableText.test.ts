import { clipText, storableText } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const isWellFormed = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false
      i++
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false
  }
  return true
}

describe("storableText", () => {
  it("drops U+0000 and replaces unpaired surrogates, and nothing else (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const stored = storableText(text)
        expect(stored.includes("\u0000")).toBe(false)
        expect(isWellFormed(stored)).toBe(true)
        // Idempotent, and the identity on text that needed nothing.
        expect(storableText(stored)).toBe(stored)
        if (!text.includes("\u0000") && isWellFormed(text)) expect(stored).toBe(text)
        // UTF-8 round trip: what the database gets back is what was hashed.
        expect(Buffer.from(stored, "utf8").toString("utf8")).toBe(stored)
      }),
      { numRuns: 2000 }
    )
  })

  it("keeps surrogate pairs (emoji) whole", () => {
    expect(storableText("a\u0000😀\uD800b\uDC00")).toBe("a😀\uFFFDb\uFFFD")
  })
})

describe("clipText", () => {
  it("cuts to the limit with an ellipsis and never leaves half a surrogate pair (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", " ", "🙂"), maxLength: 60 }),
        fc.integer({ min: 2, max: 40 }),
        (text, max) => {
          const clipped = clipText(text, max)
          expect(clipped.length).toBeLessThanOrEqual(Math.max(max, text.length <= max ? text.length : 0))
          expect(clipped.isWellFormed()).toBe(true)
          if (text.length <= max) expect(clipped).toBe(text)
          else expect(clipped.endsWith("…")).toBe(true)
        }
      ),
      { numRuns: 500 }
    )
  })
})
