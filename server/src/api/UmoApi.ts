import { HttpApi, OpenApi } from "effect/http-api"
import { AccountApi } from "./AccountApi.js"
import { AskApi } from "./AskApi.js"
import { InsightApi } from "./InsightApi.js"
import { MemoriesApi } from "./MemoriesApi.js"
import { completeDocument } from "./OpenApiDocument.js"
import { SystemApi } from "./SystemApi.js"
import { TransfersApi } from "./TransfersApi.js"

const endpoints = HttpApi.make("umo")
  .add(SystemApi)
  .add(MemoriesApi)
  .add(AskApi)
  .add(InsightApi)
  .add(AccountApi)
  .add(TransfersApi)

/** The UMO HTTP API (../shared/spec/api-v1.md). */
export class UmoApi extends endpoints
  // Bodies hold only the fields the document lists (it says `additionalProperties: false`): a
  // misspelt field is a 422 naming it, not a value silently ignored.
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
  .annotate(OpenApi.Transform, completeDocument(endpoints))
  .annotate(OpenApi.Title, "UMO memory capture and recall API")
  .annotate(OpenApi.Version, "1.0.0") {}
