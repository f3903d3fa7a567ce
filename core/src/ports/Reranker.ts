import { Context, type Effect, Schema } from "effect"

export class RerankerError extends Schema.Error<RerankerError>("RerankerError")({
  model: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * Scores how well each passage answers a query, reading the two together (a cross-encoder), which
 * a search's first stage (vectors and BM25, each passage scored alone) cannot. Costly: meant for
 * the best few candidates only. A deployment without one ranks by the first stage alone.
 */
export interface RerankerShape {
  readonly model: string
  /** One score per passage, in order: higher is more relevant; comparable within one query. */
  readonly score: (
    query: string,
    passages: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<number>, RerankerError>
}

export class Reranker extends Context.Service<Reranker, RerankerShape>()("@umo/core/Reranker") {}
