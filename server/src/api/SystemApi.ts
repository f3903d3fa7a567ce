import { Results, Unavailable } from "@umo/memory"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** `GET /health`: liveness, no authentication, a flat `{status}` body. */
export const Health = Schema.Struct({ status: Schema.Literal("healthy") })

export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("signingKeys", "/.well-known/jwks.json", {
    success: Results.SigningKeys,
    error: Unavailable
  })
) {}
