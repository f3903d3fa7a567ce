import { Context, type Effect, Schema } from "effect"

export class AnswerModelError extends Schema.Error<AnswerModelError>("AnswerModelError")({
  reason: Schema.Literals(["MissingKey", "ProviderFailed", "InvalidResponse"]),
  model: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

export type QuestionType =
  | "person"
  | "location"
  | "temporal"
  | "quantity"
  | "yes_no"
  | "list"
  | "factual"
  | "open"

/** One retrieved memory offered to the model as context, numbered from 1 for `[n]` markers. */
export interface AnswerContext {
  readonly index: number
  readonly umo_id: string
  readonly content: string
  readonly summary: string
  readonly timestamp: string
  readonly similarity: number
}

export interface AnswerRequest {
  readonly question: string
  readonly contexts: ReadonlyArray<AnswerContext>
  /** The caller's own key for a cloud provider. */
  readonly providerKey?: string | undefined
}

export interface Citation {
  readonly index: number
  readonly umo_id: string
  readonly title: string
  readonly snippet: string
  readonly similarity: number
}

export interface Answer {
  /** The answer text with `[n]` markers that refer to `citations`. */
  readonly answer: string
  readonly citations: ReadonlyArray<Citation>
  readonly confidence: number
  readonly method: "extractive" | "generative" | "no_context"
  readonly question_type: QuestionType
}

/** Writes an answer to a question from retrieved memories, citing them. */
export interface AnswerModelShape {
  readonly id: string
  readonly answer: (request: AnswerRequest) => Effect.Effect<Answer, AnswerModelError>
}

export class AnswerModel extends Context.Service<AnswerModel, AnswerModelShape>()("@umo/core/AnswerModel") {}
