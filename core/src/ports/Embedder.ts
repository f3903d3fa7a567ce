import { Context, Effect, Exit, Request, RequestResolver, Schema } from "effect"

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

/** How texts are wanted. */
export interface EmbedOptions {
  /**
   * Someone waits on them now (a search's query): they go before texts of background work (the
   * captures of a burst, a re-embedding) still waiting for the model, and are never batched with
   * those. Without it a query waited behind the model calls queued ahead of it.
   */
  readonly urgent?: boolean
}

export interface EmbedderShape {
  readonly model: EmbedderModel
  /**
   * Embeds texts in order; returns unit-length vectors. Calls made at the same time (the items of
   * a batch capture, say) are answered together, in as few model calls as the batch size allows.
   */
  readonly embed: (
    texts: ReadonlyArray<string>,
    options?: EmbedOptions
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
}

/** The port every embedding model is behind. Adapters: `@umo/plugins/embedders`. */
export class Embedder extends Context.Service<Embedder, EmbedderShape>()("@umo/core/Embedder") {}

/** The least an adapter writes: one call that embeds one batch. */
export interface EmbedderImpl {
  readonly model: EmbedderModel
  /** `options.urgent`: see `EmbedOptions` (an adapter with one model call at a time may ignore it). */
  readonly embedBatch: (
    texts: ReadonlyArray<string>,
    options?: EmbedOptions
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbedderError>
  /** Most texts per model call (default 32). */
  readonly batchSize?: number
}

const normalizeVector = (vector: ReadonlyArray<number>): ReadonlyArray<number> => {
  const norm = Math.hypot(...vector)
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/** One text to embed: a request of the embedder's resolver. */
interface EmbedText extends Request.Request<ReadonlyArray<number>, EmbedderError> {
  readonly _tag: "EmbedText"
  readonly text: string
}
const EmbedText = Request.tagged<EmbedText>("EmbedText")

/**
 * Completes an adapter. Every text becomes a request of one resolver, so the texts of all calls
 * made at the same time — from concurrent fibers too — are collected into one set: each distinct
 * text is embedded once, in model calls of at most `batchSize` texts run one after another. Each
 * model call is checked (one vector of the model's dimension per text) and its vectors normalized
 * to unit length; a failed call fails the requests it carried. Urgent texts have a resolver of
 * their own (`EmbedOptions`).
 */
export const makeEmbedder = (impl: EmbedderImpl): EmbedderShape => {
  const batchSize = Math.max(1, impl.batchSize ?? 32)
  const embedBatch = (batch: ReadonlyArray<string>, options: EmbedOptions) =>
    Effect.flatMap(impl.embedBatch(batch, options), (vectors) =>
      vectors.length === batch.length && vectors.every((v) => v.length === impl.model.dimensions)
        ? Effect.succeed(vectors.map(normalizeVector))
        : Effect.fail(
            new EmbedderError({
              reason: "InferenceFailed",
              model: impl.model.id,
              detail: `expected ${batch.length} vectors of ${impl.model.dimensions} dimensions`
            })
          )
    )
  const resolverFor = (options: EmbedOptions) =>
    RequestResolver.make<EmbedText>((entries) =>
      Effect.gen(function* () {
        const waiting = new Map<string, Array<Request.Entry<EmbedText>>>()
        for (const entry of entries) {
          const same = waiting.get(entry.request.text)
          if (same) same.push(entry)
          else waiting.set(entry.request.text, [entry])
        }
        const texts = [...waiting.keys()]
        for (let i = 0; i < texts.length; i += batchSize) {
          const batch = texts.slice(i, i + batchSize)
          const result = yield* Effect.exit(
            embedBatch(batch, options).pipe(Effect.withSpan("Embedder.embedBatch"))
          )
          for (const [j, text] of batch.entries()) {
            const vector = Exit.map(result, (vectors) => vectors[j]!)
            for (const entry of waiting.get(text)!) entry.completeUnsafe(vector)
          }
        }
      })
    )
  const resolvers = { urgent: resolverFor({ urgent: true }), other: resolverFor({}) }
  const embed = Effect.fn("Embedder.embed")((texts: ReadonlyArray<string>, options?: EmbedOptions) => {
    const resolver = options?.urgent === true ? resolvers.urgent : resolvers.other
    return Effect.forEach(texts, (text) => Effect.request(EmbedText({ text }), resolver), {
      concurrency: "unbounded"
    })
  })
  return { model: impl.model, embed }
}

/** Cosine similarity of two vectors of the same length; 0 when either is all zeros. */
export const cosineSimilarity = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
