import { HttpApi } from "effect/http-api"
import { SystemApi } from "./SystemApi.js"

/**
 * The UMO HTTP API. This skeleton holds the liveness call; the fourteen /v1 calls of
 * ../shared/spec/api-v1.md arrive with the reference-server issue.
 */
export class UmoApi extends HttpApi.make("umo").add(SystemApi) {}
