import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** `GET /health`: liveness, no authentication, a flat `{status}` body. */
export const Health = Schema.Struct({ status: Schema.Literal("healthy") })

/** The service's public signing key as a JWK Set (RFC 7517), for checking proofs and receipts offline. */
export const SigningKeys = Schema.Struct({ keys: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })

export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("signingKeys", "/.well-known/jwks.json", { success: SigningKeys })
) {}
