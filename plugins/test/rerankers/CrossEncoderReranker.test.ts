import { it } from "@effect/vitest"
import { Reranker } from "@umo/core"
import { CrossEncoderReranker } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect } from "vitest"

const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"

describe("CrossEncoderReranker", () => {
  it.layer(CrossEncoderReranker.layer({ modelsDir }), { timeout: "120 seconds" })((it) => {
    it.effect("scores the passage that answers the query above those that only share its words", () =>
      Effect.gen(function* () {
        const reranker = yield* Reranker
        const passages = [
          "Melanie: My kids love painting.",
          "Caroline: I love hiking, it clears my head.",
          "Caroline: Last weekend I went hiking at Mount Tam with friends.",
          "Caroline: Where should we go next weekend?"
        ]
        const scores = yield* reranker.score("Where did Caroline go last weekend?", passages)
        expect(scores).toHaveLength(4)
        const best = scores.indexOf(Math.max(...scores))
        expect(best).toBe(2)
        expect(scores[2]! - Math.max(scores[0]!, scores[1]!, scores[3]!)).toBeGreaterThan(2)
      })
    )

    it.effect("scores a pair the same alone as among others, and nothing for no passages", () =>
      Effect.gen(function* () {
        const reranker = yield* Reranker
        const query = "When did Marie move to Paris?"
        const passage = "Marie moved to Paris in 1891 to study physics."
        const [alone] = yield* reranker.score(query, [passage])
        const among = yield* reranker.score(query, ["Tom likes tea.", passage, "The budget passed."])
        expect(among[1]).toBe(alone)
        expect(yield* reranker.score(query, [])).toEqual([])
      })
    )
  })

  it.effect("a model that is not installed fails with how to install it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(CrossEncoderReranker.make({ modelsDir: "/nonexistent" }))
      )
      expect(error.detail).toContain("npm run fetch-models")
    })
  )
})
