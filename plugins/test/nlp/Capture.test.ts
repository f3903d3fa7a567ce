import { it } from "@effect/vitest"
import { makeDraft } from "@umo/core"
import { capture } from "@umo/plugins"
import { Effect } from "effect"
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

  it("checks its options when built", () => {
    expect(() => capture({ maxLength: 0 })).toThrow(/capture/)
  })
})
