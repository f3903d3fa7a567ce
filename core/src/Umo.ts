import { Schema } from "effect"
import { Metadata, type Scope, ScopeFields } from "./Scope.js"
import { Stage } from "./Stage.js"

const UnitInterval = Schema.Number.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 1 })))
const NonNegativeInt = Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))

/** A named thing found in the text, with the character offsets of its first mention. */
export const Entity = Schema.Struct({
  text: Schema.String,
  /** An entity class: PERSON, ORGANIZATION, LOCATION, DATE, TIME, MONEY, PERCENT, QUANTITY, EMAIL, URL, … */
  type: Schema.String,
  start: NonNegativeInt,
  end: NonNegativeInt
})
export type Entity = typeof Entity.Type

/** A subject–verb–object relationship read from one clause. */
export const SvoTriple = Schema.Struct({
  subject: Schema.String,
  verb: Schema.String,
  object: Schema.String
})
export type SvoTriple = typeof SvoTriple.Type

export const Topic = Schema.Struct({
  name: Schema.String,
  /** Relative weight of the topic in this text, in [0, 1]. */
  score: UnitInterval
})
export type Topic = typeof Topic.Type

export const ToneLabel = Schema.Literals(["positive", "neutral", "negative"])
export type ToneLabel = typeof ToneLabel.Type

/** Sentiment of the text: a label and a score in [-1, 1]. */
export const Tone = Schema.Struct({
  label: ToneLabel,
  score: Schema.Number.pipe(Schema.check(Schema.isBetween({ minimum: -1, maximum: 1 })))
})
export type Tone = typeof Tone.Type

/** One plugin that ran, as recorded on every UMO so a capture can be reproduced. */
export const PluginVersion = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  stage: Stage
})
export type PluginVersion = typeof PluginVersion.Type

/** One embedded span of the normalized content: a long text has several. */
export const EmbeddedChunk = Schema.Struct({
  start: NonNegativeInt,
  end: NonNegativeInt,
  vector: Schema.Array(Schema.Number)
})
export type EmbeddedChunk = typeof EmbeddedChunk.Type

export const Embedding = Schema.Struct({
  /** Identifier of the embedding model, e.g. `use-lite` or `sentence-transformers/all-MiniLM-L6-v2`. */
  model: Schema.String,
  dimensions: NonNegativeInt,
  chunks: Schema.Array(EmbeddedChunk)
})
export type Embedding = typeof Embedding.Type

/**
 * A Universal Memory Object: the structured, hashed record a capture produces.
 * The spec's fields (umo_id, summary, entities, svo_triples, topics, quality_score, created_at)
 * plus the ones the service needs to search, verify and reproduce it.
 */
export const Umo = Schema.Struct({
  umo_id: Schema.String,
  /** The normalized text; `content_hash` is the SHA-256 of its UTF-8 bytes. */
  content: Schema.String,
  summary: Schema.String,
  entities: Schema.Array(Entity),
  svo_triples: Schema.Array(SvoTriple),
  topics: Schema.Array(Topic),
  tone: Tone,
  language: Schema.String,
  quality_score: UnitInterval,
  source: Schema.NullOr(Schema.String),
  /** The end user, agent and conversation inside the account the memory belongs to (null: none). */
  ...ScopeFields,
  /** The caller's own tags: a flat object ({} when none). */
  metadata: Metadata,
  /** When the content was originally written (ISO 8601, UTC); defaults to the capture time. */
  timestamp: Schema.String,
  created_at: Schema.String,
  content_hash: Schema.String,
  semantic_hash: Schema.String,
  pipeline: Schema.Array(PluginVersion),
  embedding: Embedding,
  /** Fields added by custom plugins, keyed by plugin name. Part of the semantic hash. */
  extensions: Schema.Record(Schema.String, Schema.Unknown)
})
export type Umo = typeof Umo.Type

/** What a caller hands to a pipeline. */
export interface CaptureInput {
  readonly content: string
  readonly source?: string | null | undefined
  /** Original time of the content; defaults to now. */
  readonly timestamp?: Date | undefined
  /** Who the memory belongs to inside the account; each field null or absent when none. */
  readonly scope?: Partial<Scope> | undefined
  readonly metadata?: Metadata | undefined
}
