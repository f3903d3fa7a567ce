import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { windows } from "../../src/nlp/Windows.js"

describe("windows", () => {
  it("cover a text end to end, in order, each no longer than the size (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 3_000 }),
        fc.integer({ min: 8, max: 400 }),
        (text, size) => {
          const found = windows(text, size)
          expect(found[0]!.start).toBe(0)
          expect(found.at(-1)!.end).toBe(text.length)
          found.forEach((w, i) => {
            if (i > 0) expect(w.start).toBe(found[i - 1]!.end)
            expect(w.end - w.start).toBeLessThanOrEqual(size)
            if (text.length > 0) expect(w.end).toBeGreaterThan(w.start)
            // Never between the halves of a surrogate pair.
            const unit = text.charCodeAt(w.end)
            if (w.end < text.length) expect(unit >= 0xdc00 && unit <= 0xdfff).toBe(false)
          })
        }
      )
    )
  })

  it("end at paragraph breaks, then sentence ends, before cutting inside a sentence", () => {
    const sentence = "Maya moved to Lisbon in May. "
    const paragraph = `${sentence.repeat(4)}\n\n`
    const text = paragraph.repeat(6)
    for (const w of windows(text, 300).slice(0, -1)) expect(text.slice(w.start, w.end)).toMatch(/\n\n$/)
    const flat = sentence.repeat(40)
    for (const w of windows(flat, 300).slice(0, -1)) expect(flat.slice(w.start, w.end)).toMatch(/May\. $/)
  })

  it("leave a text no longer than the size whole", () => {
    expect(windows("", 10)).toEqual([{ start: 0, end: 0 }])
    expect(windows("short text", 10)).toEqual([{ start: 0, end: 10 }])
  })
})
