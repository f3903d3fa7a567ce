import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { BadGateway, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

export const AskRequest = Schema.Struct({
  question: Schema.String,
  model: Schema.optional(Schema.String),
  provider_key: Schema.optional(Schema.String),
  context_size: Schema.optional(Schema.Number)
})

export const AskAnswer = Schema.Struct({
  answer: Schema.String,
  citations: Schema.Array(
    Schema.Struct({
      index: Schema.Number,
      umo_id: Schema.String,
      title: Schema.String,
      snippet: Schema.String,
      similarity: Schema.Number
    })
  ),
  confidence: Schema.Number,
  method: Schema.Literals(["extractive", "generative", "no_context"]),
  question_type: Schema.Literals([
    "person",
    "location",
    "temporal",
    "quantity",
    "yes_no",
    "list",
    "factual",
    "open"
  ]),
  model: Schema.String
})

export const ModelList = Schema.Struct({
  local: Schema.Array(Schema.Struct({ id: Schema.String, default: Schema.optional(Schema.Boolean) })),
  cloud: Schema.Array(Schema.Struct({ id: Schema.String, requires_key: Schema.Boolean }))
})

/** `POST /v1/ask` (an answer written from the caller's memories, with citations) and its models. */
export class AskApi extends HttpApiGroup.make("ask")
  .add(
    HttpApiEndpoint.post("ask", "/v1/ask", {
      payload: AskRequest,
      success: Envelope(AskAnswer),
      error: [Unprocessable, BadGateway, ServiceUnavailable]
    }),
    HttpApiEndpoint.get("models", "/v1/ask/models", { success: Envelope(ModelList) })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
