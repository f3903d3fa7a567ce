import { it } from "@effect/vitest"
import { Embedder, EmbedderError } from "@umo/core"
import { TransformersEmbedder } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { behavesLikeASentenceEmbedder } from "./shared.js"

// `npm test` runs scripts/fetch-models.sh first, so the real ONNX weights are here.
const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"

describe("TransformersEmbedder", () => {
  for (const precision of TransformersEmbedder.precisions) {
    it.layer(TransformersEmbedder.layer({ modelsDir, batchSize: 2, precision }))((it) => {
      it.effect(`embeds all-mpnet-base-v2 from the local ${precision} ONNX graph`, () =>
        Effect.gen(function* () {
          yield* behavesLikeASentenceEmbedder
          const embedder = yield* Embedder
          expect(embedder.model.id).toBe(
            TransformersEmbedder.pinnedId(TransformersEmbedder.defaultModel, precision)
          )
        })
      )
    })
  }

  it.effect("says how to get a model that is not there", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(TransformersEmbedder.make({ modelsDir: "/nonexistent" }))
      expect(error).toBeInstanceOf(EmbedderError)
      expect(error.reason).toBe("ModelUnavailable")
      expect(error.message).toContain("npm run fetch-models")
    })
  )

  it.effect("refuses a model it does not know how to pool", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(TransformersEmbedder.make({ modelsDir, model: "acme/mystery" }))
      expect(error.detail).toContain("unknown model")
    })
  )
})
