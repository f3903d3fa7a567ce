import { existsSync } from "node:fs"
import { join } from "node:path"
import { Embedder, EmbedderError, makeEmbedder } from "@umo/core"
import { Config, Effect, Layer } from "effect"

/** The ONNX sentence embedders this adapter knows how to pool; others can be described inline. */
export const knownModels = {
  "sentence-transformers/all-MiniLM-L6-v2": { dimensions: 384, pooling: "mean", queryPrefix: "" },
  "Xenova/all-MiniLM-L6-v2": { dimensions: 384, pooling: "mean", queryPrefix: "" },
  "sentence-transformers/all-mpnet-base-v2": { dimensions: 768, pooling: "mean", queryPrefix: "" },
  "BAAI/bge-small-en-v1.5": {
    dimensions: 384,
    pooling: "cls",
    queryPrefix: "Represent this sentence for searching relevant passages: "
  },
  "Xenova/bge-small-en-v1.5": {
    dimensions: 384,
    pooling: "cls",
    queryPrefix: "Represent this sentence for searching relevant passages: "
  }
} as const

/** The best embedder that runs offline here: ranks LoCoMo evidence best (bench/README.md). */
export const defaultModel = "sentence-transformers/all-mpnet-base-v2"

export interface TransformersOptions {
  /** Directory holding `<model>/onnx/model.onnx` and its tokenizer (see scripts/fetch-models.sh). */
  readonly modelsDir: string
  /** Model id, a directory under `modelsDir` (default all-MiniLM-L6-v2). */
  readonly model?: string
  readonly batchSize?: number
}

type Extractor = (
  texts: Array<string>,
  options: { pooling: "mean" | "cls"; normalize: boolean }
) => Promise<{ tolist: () => Array<Array<number>> }>

/**
 * An ONNX sentence embedder run by transformers.js from a local directory. Nothing is fetched:
 * remote models are switched off, and a missing model fails with a message that says how to get it.
 */
export const make = (options: TransformersOptions) =>
  Effect.gen(function* () {
    const id = options.model ?? defaultModel
    const known = knownModels[id as keyof typeof knownModels]
    const modelFile = join(options.modelsDir, id, "onnx", "model.onnx")
    if (!known || !existsSync(modelFile)) {
      return yield* new EmbedderError({
        reason: "ModelUnavailable",
        model: id,
        detail: known
          ? `${modelFile} not found; run \`npm run fetch-models\` (or set UMO_MODELS_DIR), or set UMO_EMBEDDER=use-lite for the embedder that needs no set-up`
          : `unknown model; known: ${Object.keys(knownModels).join(", ")}`
      })
    }
    const extractor = yield* Effect.tryPromise({
      try: async () => {
        const transformers = await import("@huggingface/transformers")
        transformers.env.allowRemoteModels = false
        transformers.env.allowLocalModels = true
        transformers.env.localModelPath = options.modelsDir
        return (await transformers.pipeline("feature-extraction", id, {
          dtype: "fp32"
        })) as unknown as Extractor
      },
      catch: (cause) =>
        new EmbedderError({ reason: "ModelUnavailable", model: id, detail: String(cause), cause })
    })
    return makeEmbedder({
      model: { id, dimensions: known.dimensions, maxChunkChars: 1_000 },
      batchSize: options.batchSize ?? 16,
      embedBatch: (texts) =>
        Effect.tryPromise({
          try: async () =>
            (await extractor([...texts], { pooling: known.pooling, normalize: true })).tolist(),
          catch: (cause) =>
            new EmbedderError({ reason: "InferenceFailed", model: id, detail: String(cause), cause })
        })
    })
  })

export const layer = (options: TransformersOptions) => Layer.effect(Embedder, make(options))

/** Reads `UMO_MODELS_DIR` (default `./models`) and `UMO_EMBEDDER_MODEL`. */
export const layerConfig = Layer.effect(
  Embedder,
  Effect.gen(function* () {
    const modelsDir = yield* Config.String("UMO_MODELS_DIR").pipe(Config.withDefault("./models"))
    const model = yield* Config.String("UMO_EMBEDDER_MODEL").pipe(Config.withDefault(defaultModel))
    return yield* make({ modelsDir, model })
  })
)
