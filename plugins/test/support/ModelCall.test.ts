import { it } from "@effect/vitest"
import { Embedder, Reranker, UpdateJudge } from "@umo/core"
import { CrossEncoderReranker, LearnedJudge, TransformersEmbedder } from "@umo/plugins"
import { Effect, Layer, Option } from "effect"
import { describe, expect } from "vitest"

const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"

const query = "Where did Caroline go hiking last weekend?"
const passages = Array.from(
  { length: 40 },
  (_, i) =>
    `Caroline (${i}): last weekend we hiked the Dipsea trail up Mount Tam, fog all the way to the top.`
)
const pairs = passages.map((newer) => ({ earlier: "I hike in the Marin Headlands most weekends.", newer }))

const models = Layer.mergeAll(
  CrossEncoderReranker.layer({ modelsDir }),
  TransformersEmbedder.layer({ modelsDir }),
  LearnedJudge.layer({ modelsDir })
)

/**
 * A caller that gives up on a model's call under way (a capture's judge timing out, a search whose
 * client left during reranking) must not end the thread the model runs on: onnxruntime ended
 * mid-run aborts the whole process ("terminate called after throwing an instance of
 * 'Napi::Error'"), which here would end the test run itself. Live clock: the calls are given up
 * after 1 to 120 real milliseconds, while their threads are loading or running the models.
 */
describe("a model call given up while under way", () => {
  it.live(
    "leaves the process alive and each model answering as before",
    () =>
      Effect.gen(function* () {
        const reranker = yield* Reranker
        const embedder = yield* Embedder
        const judge = yield* UpdateJudge
        const scoresBefore = yield* reranker.score(query, passages.slice(0, 3))
        const vectorBefore = yield* embedder.embed([passages[0]!])
        const judgedBefore = yield* judge.score(pairs.slice(0, 2))
        for (const millis of [1, 5, 20, 60, 120, 1, 1]) {
          const scored = yield* reranker.score(query, passages).pipe(Effect.timeoutOption(millis))
          expect(Option.isNone(scored)).toBe(true)
          const judged = yield* judge.score(pairs).pipe(Effect.timeoutOption(millis))
          expect(Option.isNone(judged)).toBe(true)
          yield* embedder.embed(passages).pipe(Effect.timeoutOption(millis))
        }
        expect(yield* reranker.score(query, passages.slice(0, 3))).toEqual(scoresBefore)
        expect(yield* embedder.embed([passages[0]!])).toEqual(vectorBefore)
        expect(yield* judge.score(pairs.slice(0, 2))).toEqual(judgedBefore)
      }).pipe(Effect.provide(models)),
    180_000
  )
})
