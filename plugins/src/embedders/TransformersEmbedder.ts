import { existsSync } from "node:fs"
import { join } from "node:path"
import { Embedder, EmbedderError, makeEmbedder } from "@umo/core"
import { Config, Effect, Layer } from "effect"
import { fetchModelsCommand, modelsDirConfig } from "../support/ModelsDir.js"
import { embedderThread } from "./EmbedderThread.js"
import type { OnnxEmbedderSetup } from "./OnnxEmbedderWorker.js"

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

/**
 * The graphs scripts/fetch-models.sh can write for each model: its int8 dynamic quantization
 * (`onnx/model_int8.onnx`, the one `npm install` prepares) and the fp32 graph
 * (`onnx/model.onnx`, with `npm run fetch-models -- --fp32`).
 */
export const precisions = ["int8", "fp32"] as const
export type Precision = (typeof precisions)[number]

/**
 * int8: it ranks LoCoMo evidence within a point of fp32 (recall@5 67.4 against 67.7) and embeds
 * LoCoMo turns 1.6 times as fast on two cores without VNNI (17.6 texts/s against 10.7, query
 * 41 ms against 49 at the median; 3 times on a CPU with VNNI; bench/README.md).
 */
export const defaultPrecision: Precision = "int8"

const graphFile = { fp32: "model.onnx", int8: "model_int8.onnx" } as const satisfies Record<Precision, string>

/**
 * The id a store is pinned to: a model's vectors at one precision are close to, but not the same
 * as, its vectors at another. fp32 keeps the bare id that stores filled before int8 existed hold.
 * int8 is `@int8-v2`, the graph with 7-bit weights (scripts/quantize_onnx.py): the first int8
 * graph's vectors were wrong on CPUs without VNNI, and a store it filled must not take these.
 */
const int8Suffix = "@int8-v2"
export const pinnedId = (model: string, precision: Precision) =>
  precision === "fp32" ? model : `${model}${int8Suffix}`

/** The known model and precision a store pinned to `id` was embedded with (undefined: none this adapter runs). */
export const fromPinnedId = (id: string): { model: string; precision: Precision } | undefined => {
  const precision: Precision = id.endsWith(int8Suffix) ? "int8" : "fp32"
  const model = precision === "int8" ? id.slice(0, -int8Suffix.length) : id
  return Object.hasOwn(knownModels, model) ? { model, precision } : undefined
}

/**
 * How to get a model's graph: `npm install` prepares the default model's int8 graph, and
 * `npm run fetch-models` (`npx umo-fetch-models` outside a checkout) the others it knows with a
 * flag each (`--minilm`, `--fp32`).
 */
export const fetchHint = (model: string, precision: Precision) => {
  const flags = [
    ...(model === "sentence-transformers/all-MiniLM-L6-v2" ? ["--minilm"] : []),
    ...(precision === "fp32" ? ["--fp32"] : [])
  ]
  if (model !== defaultModel && flags[0] !== "--minilm")
    return `put ${model}'s ONNX export there (scripts/fetch-models.sh prepares only ${defaultModel} and all-MiniLM-L6-v2)`
  return `run \`${fetchModelsCommand(flags)}\``
}

export interface TransformersOptions {
  /** Directory holding `<model>/onnx/model.onnx` and its tokenizer (see scripts/fetch-models.sh). */
  readonly modelsDir: string
  /** Model id, a directory under `modelsDir` (default all-mpnet-base-v2). */
  readonly model?: string
  /** Which of the model's graphs runs (default `defaultPrecision`). */
  readonly precision?: Precision
  /** Texts per model call at fp32 (default 16); int8 embeds one text per call. */
  readonly batchSize?: number
}

/** Why the model `options` name cannot run here (unknown, or its graph is not installed), or undefined. */
export const unavailable = (options: TransformersOptions): EmbedderError | undefined => {
  const id = options.model ?? defaultModel
  const precision = options.precision ?? defaultPrecision
  const modelFile = join(options.modelsDir, id, "onnx", graphFile[precision])
  const known = Object.hasOwn(knownModels, id)
  if (known && existsSync(modelFile)) return undefined
  return new EmbedderError({
    reason: "ModelUnavailable",
    model: pinnedId(id, precision),
    detail: known
      ? `${modelFile} not found; ${fetchHint(id, precision)} (or set UMO_MODELS_DIR), or set UMO_EMBEDDER=use-lite for the embedder that needs no set-up`
      : `unknown model; known: ${Object.keys(knownModels).join(", ")}`
  })
}

/**
 * An ONNX sentence embedder run by transformers.js from a local directory. Nothing is fetched:
 * remote models are switched off, and a missing model fails with a message that says how to get it.
 */
export const make = (options: TransformersOptions) =>
  Effect.gen(function* () {
    const id = options.model ?? defaultModel
    const precision = options.precision ?? defaultPrecision
    const pinned = pinnedId(id, precision)
    const missing = unavailable(options)
    if (missing !== undefined) return yield* missing
    const known = knownModels[id as keyof typeof knownModels]
    // The model runs on a thread of its own (OnnxEmbedderWorker.ts), which loads it in the
    // background (a few seconds for mpnet): the server is up and healthy meanwhile, and the first
    // embedding waits for it. A model that cannot load fails every call.
    const setup: OnnxEmbedderSetup = {
      modelsDir: options.modelsDir,
      model: id,
      precision,
      pooling: known.pooling
    }
    const thread = yield* embedderThread(import.meta.url, "OnnxEmbedderWorker", pinned, setup)
    return makeEmbedder({
      model: { id: pinned, dimensions: known.dimensions, maxChunkChars: 1_000 },
      // An int8 graph embeds one text per call: its activations are quantized with one scale over
      // the whole batch, padding included, so a text's vector would depend on its batch-mates
      // (0.94 cosine at the median). One at a time is also faster there: no padding to compute.
      batchSize: precision === "int8" ? 1 : (options.batchSize ?? 16),
      embedBatch: thread.embed
    })
  })

export const layer = (options: TransformersOptions) => Layer.effect(Embedder, make(options))

/** The options from `UMO_MODELS_DIR` (see ModelsDir), `UMO_EMBEDDER_MODEL` and `UMO_EMBEDDER_PRECISION`. */
export const optionsConfig = Config.all({
  modelsDir: modelsDirConfig,
  model: Config.String("UMO_EMBEDDER_MODEL").pipe(Config.withDefault(defaultModel)),
  precision: Config.Literals(precisions, "UMO_EMBEDDER_PRECISION").pipe(
    Config.withDefault<Precision>(defaultPrecision)
  )
})

/** The embedder `optionsConfig` describes. */
export const layerConfig = Layer.effect(
  Embedder,
  Effect.gen(function* () {
    return yield* make(yield* optionsConfig)
  })
)
