import { HttpApi, OpenApi } from "effect/http-api"
import { AccountApi } from "./AccountApi.js"
import { AskApi } from "./AskApi.js"
import { InsightApi } from "./InsightApi.js"
import { MemoriesApi } from "./MemoriesApi.js"
import { SystemApi } from "./SystemApi.js"

/** The UMO HTTP API (../shared/spec/api-v1.md). */
export class UmoApi extends HttpApi.make("umo")
  .add(SystemApi)
  .add(MemoriesApi)
  .add(AskApi)
  .add(InsightApi)
  .add(AccountApi)
  .annotate(OpenApi.Title, "UMO memory capture and recall API")
  .annotate(OpenApi.Version, "1.0.0") {}
