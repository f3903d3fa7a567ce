import { Context, Effect, Schema } from "effect"

/** Why an embedder could not embed: its model could not be loaded, or inference failed. */
export class EmbedderError extends Schema.Error<EmbedderError>("EmbedderError")({
  reason: Schema.Literals(["ModelUnavailable", "InferenceFailed"]),
  model: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return `embedder ${this.model}: ${this.detail}`
  }
}

export interface EmbedderModel {
  /** Stable identifier, recorded in the pipeline version and pinned per store. */
  readonly id: string
  readonly dimensions: number
  /** Longest input, in characters, the model embeds well; longer texts are chunked by the embed plugin. */
  readonly maxChunkChars: number
}

export interface EmbedderShape {
  readonly model: EmbedderModel
  /** Embeds texts in order; returns unit-length vectors. Splits into batches itself. */
  readonly embed: (
    texts: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
}

/** The port every embedding model is behind. Adapters: `@umo/plugins/embedders`. */
export class Embedder extends Context.Service<Embedder, EmbedderShape>()("@umo/core/Embedder") {}

/** The least an adapter writes: one call that embeds one batch. */
export interface EmbedderImpl {
  readonly model: EmbedderModel
  readonly embedBatch: (
    texts: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
  /** Most texts per model call (default 32). */
  readonly batchSize?: number
}

const normalizeVector = (vector: ReadonlyArray<number>): ReadonlyArray<number> => {
  const norm = Math.hypot(...vector)
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/**
 * Completes an adapter: batches the input, checks that each batch returns one vector of the
 * model's dimension per text, normalizes to unit length and adds a span.
 */
export const makeEmbedder = (impl: EmbedderImpl): EmbedderShape => {
  const batchSize = Math.max(1, impl.batchSize ?? 32)
  const embed = Effect.fn("Embedder.embed")(function* (texts: ReadonlyArray<string>) {
    const out: Array<ReadonlyArray<number>> = []
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize)
      const vectors = yield* impl.embedBatch(batch)
      if (vectors.length !== batch.length || vectors.some((v) => v.length !== impl.model.dimensions)) {
        return yield* new EmbedderError({
          reason: "InferenceFailed",
          model: impl.model.id,
          detail: `expected ${batch.length} vectors of ${impl.model.dimensions} dimensions`
        })
      }
      for (const vector of vectors) out.push(normalizeVector(vector))
    }
    return out
  })
  return { model: impl.model, embed }
}
