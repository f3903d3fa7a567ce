import { CloudAnswerModel, ExtractiveAnswerModel } from "@umo/plugins"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { BadGateway, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { Count, VisibleText } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

const localModelIds = [ExtractiveAnswerModel.extractiveModelId]
const cloudModelIds = CloudAnswerModel.cloudModels.map((m) => m.id)

/** A cloud model runs with the caller's own provider key: without one the request is refused. */
const cloudModelNeedsKey = Schema.makeFilter(
  (request: { readonly model?: string | undefined; readonly provider_key?: string | undefined }) =>
    request.model === undefined ||
    !cloudModelIds.includes(request.model) ||
    request.provider_key !== undefined
      ? undefined
      : {
          path: ["provider_key"],
          issue: `is required for ${request.model}: a cloud model runs with your own provider key`
        },
  {
    toJsonSchema: () => ({
      if: { properties: { model: { enum: cloudModelIds } }, required: ["model"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
      then: { required: ["provider_key"], properties: { provider_key: { type: "string" } } }
    })
  }
)

export const AskRequest = Schema.Struct({
  question: VisibleText(2_000).annotate({ description: "a question: 1 to 2,000 characters" }),
  model: Schema.optional(Schema.Literals([...localModelIds, ...cloudModelIds])).annotate({
    description: "a model of GET /v1/ask/models; default: the default local model"
  }),
  provider_key: Schema.optional(
    Schema.String.check(
      Schema.isPattern(/^[!-~]{1,4096}$/u, { message: "must be 1 to 4,096 printable ASCII characters" })
    )
  ).annotate({
    description: "your own key for the provider of a cloud model (required for those); never stored"
  }),
  context_size: Schema.optional(Count(1, 20)).annotate({
    description: "memories given to the model: 1 to 20; default 5"
  })
}).check(cloudModelNeedsKey)

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
