import {
  ExplainRequest,
  InvalidRequest,
  MatchRequest,
  MemoryNotFound,
  Results,
  Unavailable
} from "@umo/memory"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { MemoryId } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

/** `POST /v1/match` (compare two memories) and `GET /v1/memories/{id}/explain`. */
export class InsightApi extends HttpApiGroup.make("insight")
  .add(
    HttpApiEndpoint.post("match", "/v1/match", {
      payload: MatchRequest,
      success: Envelope(Results.MatchResult),
      error: [MemoryNotFound, InvalidRequest, Unavailable]
    }),
    HttpApiEndpoint.get("explain", "/v1/memories/:id/explain", {
      params: { id: MemoryId },
      query: ExplainRequest,
      success: Envelope(Results.Explanation),
      error: [MemoryNotFound, InvalidRequest, Unavailable]
    })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
