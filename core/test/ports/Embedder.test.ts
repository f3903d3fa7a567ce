import { it } from "@effect/vitest"
import { EmbedderError, makeEmbedder } from "@umo/core"
import { Effect } from "effect"
import { describe, expect } from "vitest"

describe("makeEmbedder", () => {
  it.effect("splits input into batches, keeps order and returns unit vectors", () =>
    Effect.gen(function* () {
      const batches: Array<number> = []
      const embedder = makeEmbedder({
        model: { id: "count", dimensions: 2, maxChunkChars: 10 },
        batchSize: 3,
        embedBatch: (texts) => {
          batches.push(texts.length)
          return Effect.succeed(texts.map((t) => [t.length, 0]))
        }
      })
      const texts = ["a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"]
      const vectors = yield* embedder.embed(texts)
      expect(batches).toEqual([3, 3, 1])
      expect(vectors).toEqual(texts.map(() => [1, 0]))
    })
  )

  it.effect("fails when the model returns the wrong number or size of vectors", () =>
    Effect.gen(function* () {
      const embedder = makeEmbedder({
        model: { id: "broken", dimensions: 3, maxChunkChars: 10 },
        embedBatch: (texts) => Effect.succeed(texts.map(() => [1, 2]))
      })
      const error = yield* Effect.flip(embedder.embed(["x"]))
      expect(error).toBeInstanceOf(EmbedderError)
      expect(error.reason).toBe("InferenceFailed")
    })
  )
})
