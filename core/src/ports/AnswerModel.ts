import { Context, type Effect, Schema } from "effect"
import type { FactMode } from "../Updates.js"

export class AnswerModelError extends Schema.Error<AnswerModelError>("AnswerModelError")({
  /**
   * `MissingKey`: a cloud model was asked without the caller's key; `ProviderFailed` and
   * `InvalidResponse`: the provider failed or answered nonsense; `NotInstalled`: a local model
   * whose weights are not on this machine; `Busy`: a local model's queue is full; `TimedOut`: no
   * answer within the model's time limit.
   */
  reason: Schema.Literals([
    "MissingKey",
    "ProviderFailed",
    "InvalidResponse",
    "NotInstalled",
    "Busy",
    "TimedOut"
  ]),
  model: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/** What a question asks for, which decides the shape of an answer. */
export const QuestionType = Schema.Literals([
  "person",
  "location",
  "temporal",
  "quantity",
  "yes_no",
  "list",
  "factual",
  "open"
])
export type QuestionType = typeof QuestionType.Type

/** How an answer was made: spans of the memories, a language model, or nothing to go on. */
export const AnswerMethod = Schema.Literals(["extractive", "generative", "no_context"])
export type AnswerMethod = typeof AnswerMethod.Type

/** A fact a memory states, as its capture stored it: whose (`self`, a relation, a name), what, the value compared. */
export interface ContextFact {
  readonly subject: string
  readonly attribute: string
  readonly value: string
  readonly mode: FactMode
}

/** One retrieved memory offered to the model as context, numbered from 1 for `[n]` markers. */
export interface AnswerContext {
  readonly index: number
  readonly umo_id: string
  readonly content: string
  readonly summary: string
  readonly timestamp: string
  readonly similarity: number
  /**
   * A newer memory replaced what this one states (it was superseded, or a newer memory among the
   * contexts gives a new value of its fact): current for a question about the past, stale for one
   * about now.
   */
  readonly outdated?: boolean | undefined
  /**
   * For a question about how things stand now ("Where does she live now?", "Is he still vegan?"),
   * the search read this memory as the newest one answering it, whatever its words ("Nobody
   * warned me Nairobi gets THIS cold"): the value now, or what ended it. At most one context is.
   */
  readonly current?: boolean | undefined
  /**
   * The facts its capture stored: the fact finder's rules and the slot sense, which reads facts by
   * sentence embeddings and so cannot be read again from the content alone. Absent: none known.
   */
  readonly facts?: ReadonlyArray<ContextFact> | undefined
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
  readonly method: AnswerMethod
  readonly question_type: QuestionType
}

/** Writes an answer to a question from retrieved memories, citing them. */
export interface AnswerModelShape {
  /** As `/v1/ask` takes it: a local model's name, or `<provider>:<model>` for a cloud one. */
  readonly id: string
  /** Runs in this process (`local`), or at a provider with the caller's own key (`cloud`). */
  readonly kind: "local" | "cloud"
  /** Quotes the memories (`extractive`) or writes an answer with a language model (`generative`). */
  readonly method: "extractive" | "generative"
  /** Why this model cannot answer here (its weights are not installed, say); absent when it can. */
  readonly unavailable?: string | undefined
  readonly answer: (request: AnswerRequest) => Effect.Effect<Answer, AnswerModelError>
}

/** The answer models a service offers, and the one that answers when a caller names none. */
export interface AnswerModelsShape {
  readonly models: ReadonlyArray<AnswerModelShape>
  readonly defaultId: string
}

export class AnswerModels extends Context.Service<AnswerModels, AnswerModelsShape>()(
  "@umo/core/AnswerModels"
) {}

/**
 * The registry of `models`: ids must be unique; the default is `defaultId`, or else the first
 * local model that is available. A default that is unavailable is refused: a service must not
 * start with a default that cannot answer.
 */
export const makeAnswerModels = (
  models: ReadonlyArray<AnswerModelShape>,
  defaultId?: string
): AnswerModelsShape => {
  const ids = models.map((m) => m.id)
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i)
  if (repeated !== undefined) throw new Error(`two answer models share the id "${repeated}"`)
  const chosen = defaultId ?? models.find((m) => m.kind === "local" && m.unavailable === undefined)?.id
  if (chosen === undefined || !ids.includes(chosen))
    throw new Error(
      `the default answer model "${chosen ?? "(none)"}" is not among ${ids.join(", ") || "no models"}`
    )
  const unavailable = models.find((m) => m.id === chosen)?.unavailable
  if (unavailable !== undefined)
    throw new Error(`the default answer model "${chosen}" cannot answer here: ${unavailable}`)
  return { models, defaultId: chosen }
}
