/**
 * What each call of the Memory service answers, in the API's wire shape (snake_case): the HTTP API
 * sends these same schemas, and the Promise facade wraps them in `@umo/client`'s result classes,
 * so an answer in-process and over HTTP is the same object. The record's parts are core's.
 * @module
 */
import {
  AnswerMethod,
  Category,
  KeyRotation,
  LedgerEntry,
  Metadata,
  QualityFactor,
  QuestionType,
  ScopeFields,
  Umo,
  webhookEvents
} from "@umo/core"
import { Schema } from "effect"

const { content: _content, embedding: _embedding, ...stored } = Umo.fields

/** Where a memory stands in its line of versions. */
export const Succession = {
  /** The memories it replaced, oldest first. */
  supersedes: Schema.Array(Schema.String),
  /** The memory that replaced it, or null while it is current. */
  superseded_by: Schema.NullOr(Schema.String),
  /** When it was replaced, or null. */
  superseded_at: Schema.NullOr(Schema.String)
}

/** How long a memory lasts, and whether anything may replace it. */
export const Lifetime = {
  /** When it expires (ISO 8601): it leaves every read then and is erased with a signed receipt; null: never. */
  expires_at: Schema.NullOr(Schema.String),
  /** Captured immutable: updates and supersessions of it are refused. */
  immutable: Schema.Boolean
}

/**
 * Where an imported memory came from: the export's format, the original's id and capture time, and
 * whether its proof held against the export's signing keys (null: it carried none, as Mem0's do not).
 */
export const ImportedFrom = Schema.Struct({
  format: Schema.Literals(["umo", "mem0"]),
  id: Schema.String,
  created_at: Schema.NullOr(Schema.String),
  verified: Schema.NullOr(Schema.Boolean)
})

/**
 * A memory as `get` returns it: the UMO without its vectors, with each plugin's findings under its
 * name in `extensions`, its normalized content as `content_text` (the name search uses; the text
 * `content_hash` is computed from and entity offsets point into), its place in its line of
 * versions, and where it was imported from (null: captured here).
 */
export const MemoryRecord = Schema.Struct({
  ...stored,
  content_text: Schema.String,
  ...Succession,
  imported_from: Schema.NullOr(ImportedFrom),
  ...Lifetime,
  /** The categories it is filed under, best fitting first (see docs/categories.md). */
  categories: Schema.Array(Schema.String)
})
export type MemoryRecord = typeof MemoryRecord.Type

/** What a capture updated: the memories it superseded, and a newer one that superseded it at once. */
const Updated = {
  supersedes: Schema.Array(Schema.String),
  superseded_by: Schema.NullOr(Schema.String),
  /**
   * What the capture could not do but did not need to store the memory (the update judge failed
   * or timed out: no update was inferred). Present only when there is something to say.
   */
  warnings: Schema.optional(Schema.Array(Schema.String)),
  /**
   * The current memory this capture repeated (the same text, source, scope and metadata, at the same time or
   * with none given): its id is the answer's `umo_id`, nothing new was stored, and the chain records
   * the repeat. Present only then.
   */
  duplicate_of: Schema.optional(Schema.String)
}

/** What a capture returns: the spec's fields, its provenance receipt (a compact JWS) and what it updated. */
export const Captured = Schema.Struct({
  umo_id: Schema.String,
  quality_score: Schema.Number,
  created_at: Schema.String,
  content_hash: Schema.String,
  receipt: Schema.String,
  ...Updated
})
export type Captured = typeof Captured.Type

export const BatchResultItem = Schema.Struct({
  index: Schema.Number,
  success: Schema.Boolean,
  umo_id: Schema.NullOr(Schema.String),
  quality_score: Schema.optional(Schema.Number),
  content_hash: Schema.optional(Schema.String),
  receipt: Schema.optional(Schema.String),
  supersedes: Schema.optional(Updated.supersedes),
  superseded_by: Schema.optional(Updated.superseded_by),
  warnings: Updated.warnings,
  duplicate_of: Updated.duplicate_of,
  error: Schema.optional(Schema.Struct({ status: Schema.Number, detail: Schema.String }))
})
export type BatchResultItem = typeof BatchResultItem.Type

export const BatchResult = Schema.Struct({ results: Schema.Array(BatchResultItem) })
export type BatchResult = typeof BatchResult.Type

/** What a change of many memories returns: each new version as a batch item, in the order of the changes. */
export const UpdateManyResult = BatchResult
export type UpdateManyResult = BatchResult

export const Uploaded = Schema.Struct({
  ...Captured.fields,
  summary: Schema.String,
  /** The detected format: pdf, html, json, csv, markdown, text, or an image/audio media type. */
  format: Schema.String,
  characters: Schema.Number
})
export type Uploaded = typeof Uploaded.Type

/** Who a memory belongs to, its tags and its categories, as get, list and search show them. */
const Belonging = { ...ScopeFields, metadata: Metadata, categories: MemoryRecord.fields.categories }

export const ListItem = Schema.Struct({
  umo_id: Schema.String,
  summary: Schema.String,
  quality_score: Schema.Number,
  created_at: Schema.String,
  timestamp: Schema.String,
  source: Schema.NullOr(Schema.String),
  ...Belonging,
  superseded_by: Schema.NullOr(Schema.String),
  ...Lifetime
})

export const ListPage = Schema.Struct({
  items: Schema.Array(ListItem),
  total_count: Schema.Number,
  has_more: Schema.Boolean
})
export type ListPage = typeof ListPage.Type

/** A scope of the account: how many current memories it holds and the newest one's time. */
export const ScopeSummary = Schema.Struct({
  kind: Schema.Literals(["user", "agent", "session"]),
  id: Schema.String,
  memories: Schema.Number,
  last_memory_at: Schema.String
})

export const ScopeList = Schema.Struct({
  scopes: Schema.Array(ScopeSummary),
  total_count: Schema.Number,
  has_more: Schema.Boolean
})
export type ScopeList = typeof ScopeList.Type

/** A page of the account's hash chain, newest first: the entries as signed, to verify offline. */
export const ChainPage = Schema.Struct({
  entries: Schema.Array(LedgerEntry),
  has_more: Schema.Boolean,
  /** With `has_more`, the `before` that asks for the next (older) page: the last entry's seq; else null. */
  next_before: Schema.NullOr(Schema.Int)
})
export type ChainPage = typeof ChainPage.Type

/**
 * A later memory of the same person linked to a result (by the update judge, or by nearness in
 * meaning), with its time: where UMO did not decide that it replaces the result, the reader (an
 * agent's own model) can.
 */
export const LaterRelated = Schema.Struct({
  umo_id: Schema.String,
  content_text: Schema.String,
  /** When it was said (its content time). */
  timestamp: Schema.String,
  /** `judge`: the update judge read it as likely making the result out of date; `nearness`: it speaks of the same thing. */
  link: Schema.Literals(["judge", "nearness"]),
  /** The judge's probability, or the cosine similarity for a link by nearness. */
  score: Schema.Number
})
export type LaterRelated = typeof LaterRelated.Type

export const SearchResult = Schema.Struct({
  umo_id: Schema.String,
  content_text: Schema.String,
  score: Schema.Number,
  /** The newest time the text was said: one result stands for every memory of the same text. */
  timestamp: Schema.String,
  /** How many matching memories hold this same text (1 when it was said once). */
  times_said: Schema.Number,
  source: Schema.NullOr(Schema.String),
  ...Belonging,
  superseded_by: Schema.NullOr(Schema.String),
  /** For the first three results, later memories of the same person linked to it, newest first (at most three); else empty. */
  later_related: Schema.Array(LaterRelated)
})

export const SearchResults = Schema.Struct({
  results: Schema.Array(SearchResult),
  /** Every memory the ranking scored for the query, counted up to 1,000. */
  total_count: Schema.Number,
  has_more: Schema.Boolean
})
export type SearchResults = typeof SearchResults.Type

export const Proof = Schema.Struct({
  valid: Schema.Boolean,
  hash_chain_valid: Schema.Boolean,
  first_published: Schema.String,
  audit_proof: Schema.Struct({
    content_hash: Schema.String,
    semantic_hash: Schema.String,
    verification_mode: Schema.Literal("cryptographic"),
    chain_tampered: Schema.Boolean
  }),
  umo_id: Schema.String,
  source: Schema.NullOr(Schema.String),
  /** The memory's capture entry in the account's hash chain, as signed (see docs/provenance.md). */
  chain: Schema.NullOr(LedgerEntry),
  /** The memory that replaced it, or null while it is current. */
  superseded_by: Schema.NullOr(Schema.String),
  /** The signed chain entry recording that replacement, or null. */
  supersession: Schema.NullOr(LedgerEntry),
  /** The public key that signed the entry (a copy: verify with the keys you pinned). */
  public_key: Schema.Record(Schema.String, Schema.Unknown),
  /** The service's key records, to follow key rotations from the keys you pinned. */
  rotations: Schema.Array(KeyRotation)
})
export type Proof = typeof Proof.Type

export const DeletionReceipt = Schema.Struct({
  forgotten: Schema.Boolean,
  umo_id: Schema.String,
  deleted_at: Schema.String,
  receipt: Schema.String
})
export type DeletionReceipt = typeof DeletionReceipt.Type

/** An erasure of a scope's memories: how many, which, and one signed receipt naming them. */
export const ErasureReceipt = Schema.Struct({
  /** How many memories were erased. */
  forgotten: Schema.Int,
  umo_ids: Schema.Array(Schema.String),
  /** When; null when nothing matched. */
  deleted_at: Schema.NullOr(Schema.String),
  /** Compact JWS (EdDSA) of the erasure (see docs/provenance.md); empty when nothing matched. */
  receipt: Schema.String
})
export type ErasureReceipt = typeof ErasureReceipt.Type

/** What a sweep of expired memories erased of one account (its receipt's claims say `reason: "expired"`). */
export const ExpiredErasure = Schema.Struct({ account_id: Schema.String, erasure: ErasureReceipt })
export type ExpiredErasure = typeof ExpiredErasure.Type

/** One version in a memory's line: the memory as `get` returns it. */
export const MemoryHistory = Schema.Struct({
  /** The memory asked about. */
  umo_id: Schema.String,
  /** Every memory linked to it by supersession, itself included, oldest first (content time, then id). */
  versions: Schema.Array(MemoryRecord)
})
export type MemoryHistory = typeof MemoryHistory.Type

/** Who the memories belong to, and the plan (the beta enforces no quota: the limits are null). */
export const AccountInfo = Schema.Struct({
  account: Schema.Struct({
    user_id: Schema.String,
    workspace_id: Schema.NullOr(Schema.String),
    name: Schema.String
  }),
  plan: Schema.Struct({
    tier: Schema.String,
    umo_limit: Schema.NullOr(Schema.Number),
    search_limit: Schema.NullOr(Schema.Number),
    beta: Schema.Boolean
  })
})
export type AccountInfo = typeof AccountInfo.Type

export const Citation = Schema.Struct({
  index: Schema.Number,
  umo_id: Schema.String,
  title: Schema.String,
  snippet: Schema.String,
  similarity: Schema.Number,
  /** Later memories of the same person linked to the cited one, as search gives them. */
  later_related: Schema.Array(LaterRelated)
})

export const AskAnswer = Schema.Struct({
  answer: Schema.String,
  citations: Schema.Array(Citation),
  confidence: Schema.Number,
  method: AnswerMethod,
  question_type: QuestionType,
  model: Schema.String
})
export type AskAnswer = typeof AskAnswer.Type

const AnswerMethodName = Schema.Literals(["extractive", "generative"])

/**
 * The answer models a service offers. A local model whose weights are not installed is listed
 * with `available: false` and why (`detail`), and is refused if asked for.
 */
export const ModelList = Schema.Struct({
  local: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      method: AnswerMethodName,
      available: Schema.Boolean,
      detail: Schema.optional(Schema.String),
      default: Schema.optional(Schema.Boolean)
    })
  ),
  cloud: Schema.Array(
    Schema.Struct({ id: Schema.String, method: AnswerMethodName, requires_key: Schema.Boolean })
  )
})
export type ModelList = typeof ModelList.Type

/** How much each signal counts in a match score. */
export const MatchWeights = Schema.Struct({
  semantic: Schema.Number,
  entity: Schema.Number,
  topic: Schema.Number,
  triple: Schema.Number
})

export const MatchBreakdown = Schema.Struct({
  weights: MatchWeights,
  semantic: Schema.Number,
  entity_overlap: Schema.Number,
  topic_overlap: Schema.Number,
  triple_overlap: Schema.Number,
  shared_entities: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.String })),
  shared_topics: Schema.Array(Schema.String),
  identical_content: Schema.Boolean
})

export const MatchResult = Schema.Struct({
  score: Schema.Number,
  similarity: Schema.Number,
  relationship: Schema.Literals(["duplicate", "related", "unrelated"]),
  matched: Schema.Boolean,
  threshold: Schema.Number,
  /** With `explain`: the weighted parts of the score and what the two memories share. */
  breakdown: Schema.optional(MatchBreakdown)
})
export type MatchResult = typeof MatchResult.Type

export const Explanation = Schema.Struct({
  human: Schema.Struct({ summary: Schema.String, key_reasons: Schema.Array(Schema.String) }),
  audit: Schema.Struct({
    verification_mode: Schema.Literal("cryptographic"),
    reproducible: Schema.Boolean,
    pipeline: Umo.fields.pipeline,
    semantic_hash: Schema.String,
    quality_factors: Schema.Array(QualityFactor)
  })
})
export type Explanation = typeof Explanation.Type

/**
 * The service's public signing keys as a JWK Set (RFC 7517), current first, then retired ones, and
 * the key records that link them: pin it once, and verifiers follow later rotations through them.
 */
export const SigningKeys = Schema.Struct({
  keys: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
  rotations: Schema.Array(KeyRotation)
})
export type SigningKeys = typeof SigningKeys.Type

/** The categories an account files its memories under: its own list, or the default one. */
export const CategoryListResult = Schema.Struct({
  categories: Schema.Array(Category),
  /** `account`: the account's own list; `default`: Mem0's default fifteen. */
  origin: Schema.Literals(["account", "default"])
})
export type CategoryListResult = typeof CategoryListResult.Type

/** A webhook of the account, and how its deliveries stand. */
export const WebhookInfo = Schema.Struct({
  webhook_id: Schema.String,
  url: Schema.String,
  name: Schema.NullOr(Schema.String),
  events: Schema.Array(Schema.Literals(webhookEvents)),
  created_at: Schema.String,
  /** The chain position delivered so far: events after it are on their way. */
  delivered_seq: Schema.Number,
  /** Failed deliveries of the next event (0: none), and the last failure's reason. */
  attempts: Schema.Number,
  last_error: Schema.NullOr(Schema.String)
})
export type WebhookInfo = typeof WebhookInfo.Type

/** A webhook as added: with its secret, shown this once (it signs every delivery). */
export const CreatedWebhook = Schema.Struct({
  ...WebhookInfo.fields,
  /** Verifies the `umo-signature` header of each delivery (HMAC-SHA256); keep it secret. */
  secret: Schema.String
})
export type CreatedWebhook = typeof CreatedWebhook.Type

export const WebhookList = Schema.Struct({ webhooks: Schema.Array(WebhookInfo) })
export type WebhookList = typeof WebhookList.Type
