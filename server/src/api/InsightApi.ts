import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { NotFound, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { MemoryId, QueryText } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

export const MatchRequest = Schema.Struct({
  source_ulid: Schema.String.annotate({
    description: "a memory id; another account's or an unknown one is a 404"
  }),
  candidate_ulid: Schema.String.annotate({ description: "a memory id" }),
  explain: Schema.optional(Schema.Boolean),
  threshold: Schema.optional(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))).annotate({
    description: "0 to 1; default 0.5"
  })
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
      params: { id: MemoryId },
      query: Schema.Struct({
        query: Schema.optional(QueryText).annotate({
          description: "why the memory matches this query (1,000 characters at most)"
        })
      }),
      success: Envelope(Explanation),
      error: [NotFound, ServiceUnavailable]
    })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
