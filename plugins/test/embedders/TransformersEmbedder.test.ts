import { it } from "@effect/vitest"
import { EmbedderError } from "@umo/core"
import { TransformersEmbedder } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { behavesLikeASentenceEmbedder } from "./shared.js"

// `npm test` runs scripts/fetch-models.sh first, so the real ONNX weights are here.
const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"

describe("TransformersEmbedder", () => {
  it.layer(TransformersEmbedder.layer({ modelsDir, batchSize: 2 }))((it) => {
    it.effect("embeds all-MiniLM-L6-v2 from the local ONNX export", () => behavesLikeASentenceEmbedder)
  })

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
