import { it } from "@effect/vitest"
import { makeDraft } from "@umo/core"
import { validate } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect } from "vitest"

const draftOf = (content: string) =>
  makeDraft({ content, source: null, timestamp: "2026-01-01T00:00:00.000Z" })

describe("validate", () => {
  it.effect("sets a quality score in [0, 1]", () =>
    Effect.gen(function* () {
      const draft = yield* validate().run(draftOf("Ada wrote the first program."))
      expect(draft.quality_score).toBeGreaterThan(0)
      expect(draft.quality_score).toBeLessThanOrEqual(1)
    })
  )

  it.effect("fails when an entity's offsets do not point at its text", () =>
    Effect.gen(function* () {
      const draft = {
        ...draftOf("Ada wrote code."),
        entities: [{ text: "Ada", type: "PERSON", start: 4, end: 7 }]
      }
      const failure = yield* Effect.flip(validate().run(draft))
      expect(failure.reason).toBe("Failed")
    })
  )
})
