import { it } from "@effect/vitest"
import { makeDraft } from "@umo/core"
import { capture, normalizeText } from "@umo/plugins"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"

const draftOf = (content: string) =>
  makeDraft({ content, source: null, timestamp: "2026-01-01T00:00:00.000Z" })

describe("capture", () => {
  it.effect("accepts content up to the limit", () =>
    Effect.gen(function* () {
      const draft = yield* capture({ maxLength: 10 }).run(draftOf("x".repeat(10)))
      expect(draft.raw).toBe("xxxxxxxxxx")
    })
  )

  it.effect("rejects empty, blank and over-long content as invalid input", () =>
    Effect.gen(function* () {
      const plugin = capture({ maxLength: 10 })
      for (const content of ["", " \n\t ", "x".repeat(11)]) {
        const failure = yield* Effect.flip(plugin.run(draftOf(content)))
        expect(failure.reason).toBe("InvalidInput")
      }
    })
  )

  it("counts characters as code points, and refuses exactly what normalizes to nothing (property)", () =>
    Effect.gen(function* () {
      const plugin = capture({ maxLength: 10 })
      // Ten emoji are ten characters (twenty UTF-16 units).
      expect((yield* plugin.run(draftOf("😀".repeat(10)))).raw).toBe("😀".repeat(10))
      expect((yield* Effect.flip(plugin.run(draftOf("😀".repeat(11))))).reason).toBe("InvalidInput")
      const run = Effect.runSync
      fc.assert(
        fc.property(
          fc.string({
            unit: fc.constantFrom(
              " ",
              "\t",
              "\n",
              "\u0000",
              "\u0085",
              "\u00A0",
              "\u200B",
              "\u2028",
              "\u3000",
              "\uFEFF",
              "\u0001",
              "a",
              "é",
              "\u0301"
            ),
            maxLength: 10
          }),
          (text) => {
            const accepted = run(Effect.exit(plugin.run(draftOf(text))))._tag === "Success"
            expect(accepted).toBe(normalizeText(text).length > 0)
          }
        ),
        { numRuns: 500 }
      )
    }))

  it("checks its options when built", () => {
    expect(() => capture({ maxLength: 0 })).toThrow(/capture/)
  })
})
