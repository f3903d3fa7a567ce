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

  it.effect(
    "embeds urgent texts in model calls of their own, marked urgent, even when asked at the same time",
    () =>
      Effect.gen(function* () {
        const calls: Array<{ readonly texts: ReadonlyArray<string>; readonly urgent: boolean }> = []
        const embedder = makeEmbedder({
          model: { id: "count", dimensions: 2, maxChunkChars: 10 },
          batchSize: 8,
          embedBatch: (texts, options) => {
            calls.push({ texts, urgent: options?.urgent === true })
            return Effect.succeed(texts.map((t) => [t.length, 1]))
          }
        })
        const [captured, query] = yield* Effect.all(
          [embedder.embed(["a", "bb", "ccc"]), embedder.embed(["query?"], { urgent: true })],
          { concurrency: "unbounded" }
        )
        expect(captured).toHaveLength(3)
        expect(query).toHaveLength(1)
        expect(calls.filter((c) => c.urgent)).toEqual([{ texts: ["query?"], urgent: true }])
        expect(calls.filter((c) => !c.urgent).flatMap((c) => c.texts)).toEqual(["a", "bb", "ccc"])
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
