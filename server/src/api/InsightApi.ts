import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { NotFound, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

export const MatchRequest = Schema.Struct({
  source_ulid: Schema.String,
  candidate_ulid: Schema.String,
  explain: Schema.optional(Schema.Boolean),
  threshold: Schema.optional(Schema.Number)
})

export const MatchResult = Schema.Struct({
  score: Schema.Number,
  similarity: Schema.Number,
  relationship: Schema.Literals(["duplicate", "related", "unrelated"]),
  matched: Schema.Boolean,
  threshold: Schema.Number,
  breakdown: Schema.optional(Schema.Unknown)
})

export const Explanation = Schema.Struct({
  human: Schema.Struct({ summary: Schema.String, key_reasons: Schema.Array(Schema.String) }),
  audit: Schema.Struct({
    verification_mode: Schema.Literal("cryptographic"),
    reproducible: Schema.Boolean,
    pipeline: Schema.Unknown,
    semantic_hash: Schema.String,
    quality_factors: Schema.Unknown
  })
})

/** `POST /v1/match` (compare two memories) and `GET /v1/memories/{id}/explain`. */
export class InsightApi extends HttpApiGroup.make("insight")
  .add(
    HttpApiEndpoint.post("match", "/v1/match", {
      payload: MatchRequest,
      success: Envelope(MatchResult),
      error: [NotFound, Unprocessable, ServiceUnavailable]
    }),
    HttpApiEndpoint.get("explain", "/v1/memories/:id/explain", {
      params: { id: Schema.String },
      query: Schema.Struct({ query: Schema.optional(Schema.String) }),
      success: Envelope(Explanation),
      error: [NotFound, ServiceUnavailable]
    })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
