import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { modelThread } from "../../src/support/ModelThread.js"

const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"
const rerankerModule = new URL("../../src/rerankers/CrossEncoderReranker.ts", import.meta.url).href
const setup = { modelsDir, model: "cross-encoder/ms-marco-MiniLM-L-12-v2", maxTokens: 256 }
const task = {
  query: "Where did Caroline go last weekend?",
  passages: ["Caroline went hiking at Mount Tam."]
}

describe("modelThread", () => {
  it.live(
    "a model unloaded when idle loads again on the next call and scores as before",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const thread = yield* modelThread<typeof task, Array<number>>(
            rerankerModule,
            "CrossEncoderWorker",
            setup,
            0.5
          )
          expect(thread.loaded()).toBe(false)
          const first = yield* Effect.promise((signal) => thread.run(task, signal))
          expect(thread.loaded()).toBe(true)
          for (let waited = 0; thread.loaded() && waited < 20_000; waited += 100)
            yield* Effect.sleep("100 millis")
          expect(thread.loaded()).toBe(false)
          const again = yield* Effect.promise((signal) => thread.run(task, signal))
          expect(thread.loaded()).toBe(true)
          expect(again).toEqual(first)
        })
      ),
    120_000
  )

  it.live(
    "with 0 idle seconds the model stays loaded",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const thread = yield* modelThread<typeof task, Array<number>>(
            rerankerModule,
            "CrossEncoderWorker",
            setup,
            0
          )
          yield* Effect.promise((signal) => thread.run(task, signal))
          yield* Effect.sleep("1500 millis")
          expect(thread.loaded()).toBe(true)
        })
      ),
    120_000
  )
})
