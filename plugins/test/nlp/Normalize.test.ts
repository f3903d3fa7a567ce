import { guessLanguage, normalizeText, splitSentences } from "@umo/plugins"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

describe("normalizeText", () => {
  it("composes Unicode, unifies line breaks, strips control characters and squeezes spaces", () => {
    expect(normalizeText("  Cafe\u0301\u00a0\u00a0au\tlait \r\n\r\n\r\n\r\nnext\u0007 line\u200b  ")).toBe(
      "Caf\u00e9 au lait\n\nnext line"
    )
    expect(normalizeText("\ufeffline one  \n   line two")).toBe("line one\nline two")
  })

  it("composes a letter and its mark even with a control character between them", () => {
    expect(normalizeText("e\u0001\u0301")).toBe("\u00e9")
  })

  it("keeps emoji sequences joined with zero-width joiners", () => {
    expect(normalizeText("family: 👨\u200d👩\u200d👧")).toBe("family: 👨\u200d👩\u200d👧")
  })

  it("is idempotent (property)", () => {
    const noisy = fc.string({
      unit: fc.oneof(
        fc.constantFrom(
          " ",
          "\t",
          "\n",
          "\r",
          "\r\n",
          "\u00a0",
          "\u2028",
          "\u0000",
          "\u0085",
          "\u200b",
          "\u0301",
          "e",
          "é"
        ),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
        fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
      ),
      maxLength: 120
    })
    fc.assert(
      fc.property(noisy, (text) => {
        const once = normalizeText(text)
        expect(normalizeText(once)).toBe(once)
        expect(once).toBe(once.normalize("NFC"))
        expect(once).not.toMatch(/^\s|\s$|\n{3}| {2}/)
      }),
      { numRuns: 500 }
    )
  })
})

describe("splitSentences", () => {
  it("returns offsets that cover each sentence", () => {
    const text = "Ada wrote a program. It ran on the engine! Did it work?"
    expect(splitSentences(text).map((s) => text.slice(s.start, s.end))).toEqual([
      "Ada wrote a program.",
      "It ran on the engine!",
      "Did it work?"
    ])
  })
})

describe("guessLanguage", () => {
  it("recognises English and German, and declines to guess on very short text", () => {
    expect(guessLanguage("The quick brown fox jumps over the lazy dog near the river bank.")).toBe("eng")
    expect(guessLanguage("Der schnelle braune Fuchs springt über den faulen Hund am Flussufer.")).toBe("deu")
    expect(guessLanguage("ok lol")).toBe("und")
  })
})
