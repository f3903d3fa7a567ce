import { Schema } from "effect"
import { CaptureRequest, Count, Source, VisibleText } from "./Fields.js"
import { KeyRotation } from "./SystemApi.js"

/** The spec's envelope around most responses; `data` is the endpoint's payload. */
export const Envelope = <S extends Schema.Top>(data: S) =>
  Schema.Struct({
    status: Schema.Literal("success"),
    data,
    request_id: Schema.String,
    timestamp: Schema.String
  })

const Entity = Schema.Struct({
  text: Schema.String,
  type: Schema.String,
  start: Schema.Number,
  end: Schema.Number
})
const Triple = Schema.Struct({ subject: Schema.String, verb: Schema.String, object: Schema.String })
const Topic = Schema.Struct({ name: Schema.String, score: Schema.Number })
const Tone = Schema.Struct({ label: Schema.String, score: Schema.Number })
const PluginVersion = Schema.Struct({ name: Schema.String, version: Schema.String, stage: Schema.String })

/** A memory as `GET /v1/memories/{id}` returns it (flat): the spec's fields and the rest of the UMO. */
export const Memory = Schema.Struct({
  umo_id: Schema.String,
  summary: Schema.String,
  entities: Schema.Array(Entity),
  svo_triples: Schema.Array(Triple),
  topics: Schema.Array(Topic),
  tone: Tone,
  quality_score: Schema.Number,
  created_at: Schema.String,
  timestamp: Schema.String,
  source: Schema.NullOr(Schema.String),
  language: Schema.String,
  content_hash: Schema.String,
  semantic_hash: Schema.String,
  pipeline: Schema.Array(PluginVersion)
})

/** What a capture returns: the spec's fields and the provenance receipt DESIGN.md promises. */
export const Captured = Schema.Struct({
  umo_id: Schema.String,
  quality_score: Schema.Number,
  created_at: Schema.String,
  content_hash: Schema.String,
  receipt: Schema.String
})

export const ListItem = Schema.Struct({
  umo_id: Schema.String,
  summary: Schema.String,
  quality_score: Schema.Number,
  created_at: Schema.String,
  source: Schema.NullOr(Schema.String)
})

export const ListPage = Schema.Struct({
  items: Schema.Array(ListItem),
  total_count: Schema.Number,
  has_more: Schema.Boolean
})

export const ListQuery = Schema.Struct({
  limit: Schema.optional(Count(1, 100)).annotate({ description: "1 to 100; default 20" }),
  offset: Schema.optional(Count(0, Number.MAX_SAFE_INTEGER)).annotate({ description: "default 0" }),
  source: Schema.optional(Source)
})

const LedgerEntry = Schema.Struct({
  account_id: Schema.String,
  seq: Schema.Number,
  kind: Schema.String,
  umo_id: Schema.String,
  content_hash: Schema.String,
  semantic_hash: Schema.String,
  record_hash: Schema.String,
  recorded_at: Schema.String,
  prev_hash: Schema.String,
  entry_hash: Schema.String,
  signature: Schema.String,
  key_id: Schema.String
})

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
  /** The public key that signed the entry (a copy: verify with the keys you pinned). */
  public_key: Schema.Record(Schema.String, Schema.Unknown),
  /** The service's key records, to follow key rotations from the keys you pinned. */
  rotations: Schema.Array(KeyRotation)
})

export const DeletionReceipt = Schema.Struct({
  forgotten: Schema.Boolean,
  umo_id: Schema.String,
  deleted_at: Schema.String,
  receipt: Schema.String
})

export const AccountStatus = Schema.Struct({
  account: Schema.Struct({
    user_id: Schema.String,
    workspace_id: Schema.NullOr(Schema.String),
    name: Schema.String
  }),
  key: Schema.Struct({ key_id: Schema.String, tier: Schema.String, status: Schema.String }),
  plan: Schema.Struct({
    tier: Schema.String,
    umo_limit: Schema.NullOr(Schema.Number),
    search_limit: Schema.NullOr(Schema.Number),
    beta: Schema.Boolean
  })
})

/**
 * 1–100 items. Each is checked on its own against the capture request: an item that is not one is
 * answered in its result (`success: false`, status 422) and the others are still captured, so any
 * JSON value is a valid item (the schema says so: a capture request, or anything else).
 */
export const BatchRequest = Schema.Struct({
  items: Schema.Array(Schema.Union([CaptureRequest, Schema.Unknown])).check(Schema.isBetweenLength(1, 100))
})

export const BatchResultItem = Schema.Struct({
  index: Schema.Number,
  success: Schema.Boolean,
  umo_id: Schema.NullOr(Schema.String),
  quality_score: Schema.optional(Schema.Number),
  content_hash: Schema.optional(Schema.String),
  receipt: Schema.optional(Schema.String),
  error: Schema.optional(Schema.Struct({ status: Schema.Number, detail: Schema.String }))
})

export const BatchResult = Schema.Struct({ results: Schema.Array(BatchResultItem) })

export const SearchRequest = Schema.Struct({
  query: VisibleText(2_000).annotate({ description: "the question or search text: 1 to 2,000 characters" }),
  limit: Schema.optional(Count(1, 50)).annotate({ description: "1 to 50; default 5" }),
  source: Schema.optional(Source)
})

export const SearchResults = Schema.Struct({
  results: Schema.Array(
    Schema.Struct({ umo_id: Schema.String, content_text: Schema.String, score: Schema.Number })
  ),
  total_count: Schema.Number,
  has_more: Schema.Boolean
})

export const Uploaded = Schema.Struct({
  umo_id: Schema.String,
  summary: Schema.String,
  quality_score: Schema.Number,
  created_at: Schema.String,
  content_hash: Schema.String,
  receipt: Schema.String,
  /** The detected format: pdf, html, json, csv, markdown, text, or an image/audio media type. */
  format: Schema.String,
  characters: Schema.Number
})
