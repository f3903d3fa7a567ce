import type { Stage } from "./Stage.js"
import type { Embedding, Entity, SvoTriple, Tone, Topic } from "./Umo.js"

/** How serious a finding is. A `fatal` message stops the pipeline (like vfile's `fail`). */
export type MessageLevel = "info" | "warning" | "fatal"

export interface Message {
  readonly level: MessageLevel
  readonly text: string
  /** Filled in by the pipeline: the plugin and stage that added the message. */
  readonly plugin?: string
  readonly stage?: Stage
}

/** A sentence of `content`, as character offsets, found by the normalize stage. */
export interface Sentence {
  readonly start: number
  readonly end: number
}

/**
 * The working record that flows through the pipeline. Each plugin receives the draft the previous
 * plugin returned and returns the next one; drafts are immutable values.
 */
export interface Draft {
  /** The text as the caller sent it. Never changed. */
  readonly raw: string
  /** The current text: raw until the normalize stage, normalized after it. */
  readonly content: string
  readonly source: string | null
  /** Original time of the content (ISO 8601, UTC). */
  readonly timestamp: string
  readonly language: string | null
  readonly sentences: ReadonlyArray<Sentence>
  readonly entities: ReadonlyArray<Entity>
  readonly topics: ReadonlyArray<Topic>
  readonly tone: Tone | null
  readonly summary: string | null
  readonly svo_triples: ReadonlyArray<SvoTriple>
  readonly embedding: Embedding | null
  readonly quality_score: number | null
  /** Extra fields of custom plugins, keyed by plugin name; they end up on the UMO. */
  readonly extensions: Readonly<Record<string, unknown>>
  readonly messages: ReadonlyArray<Message>
}

/** A fresh draft for a capture: nothing extracted yet. */
export const makeDraft = (input: { content: string; source: string | null; timestamp: string }): Draft => ({
  raw: input.content,
  content: input.content,
  source: input.source,
  timestamp: input.timestamp,
  language: null,
  sentences: [],
  entities: [],
  topics: [],
  tone: null,
  summary: null,
  svo_triples: [],
  embedding: null,
  quality_score: null,
  extensions: {},
  messages: []
})

/** Returns the draft with one more message; the pipeline stamps plugin and stage on it. */
export const addMessage = (draft: Draft, level: MessageLevel, text: string): Draft => ({
  ...draft,
  messages: [...draft.messages, { level, text }]
})

/** The text of a sentence. */
export const sentenceText = (draft: Draft, sentence: Sentence): string =>
  draft.content.slice(sentence.start, sentence.end)
