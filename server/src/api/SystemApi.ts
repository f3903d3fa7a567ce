import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ServiceUnavailable } from "./Errors.js"

/** `GET /health`: liveness, no authentication, a flat `{status}` body. */
export const Health = Schema.Struct({ status: Schema.Literal("healthy") })

/**
 * A key record (JWS, general JSON serialization): a key and the one it replaced, signed by both
 * (the first key's record by itself). See docs/provenance.md.
 */
export const KeyRotation = Schema.Struct({
  payload: Schema.String,
  signatures: Schema.Array(Schema.Struct({ protected: Schema.String, signature: Schema.String }))
})

/**
 * The service's public signing keys as a JWK Set (RFC 7517), current first, then retired ones, and
 * the key records that link them: pin it once, and verifiers follow later rotations through them.
 */
export const SigningKeys = Schema.Struct({
  keys: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
  rotations: Schema.Array(KeyRotation)
})

export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("signingKeys", "/.well-known/jwks.json", {
    success: SigningKeys,
    error: ServiceUnavailable
  })
) {}
