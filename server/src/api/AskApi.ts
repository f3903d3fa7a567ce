import { AskRequest, InvalidRequest, ProviderFailed, Results, Unavailable } from "@umo/memory"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

/**
 * `POST /v1/ask` (an answer written from the caller's memories, with citations) and its models.
 * Which models exist is the deployment's configuration: the served document lists them (see
 * `OpenApiDocument.withAnswerModels`).
 */
export class AskApi extends HttpApiGroup.make("ask")
  .add(
    HttpApiEndpoint.post("ask", "/v1/ask", {
      payload: AskRequest,
      success: Envelope(Results.AskAnswer),
      error: [InvalidRequest, ProviderFailed, Unavailable]
    }),
    HttpApiEndpoint.get("models", "/v1/ask/models", { success: Envelope(Results.ModelList) })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
