import { ChainRequest, InvalidRequest, Results, Unavailable } from "@umo/memory"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { AccountStatus, Envelope } from "./Schemas.js"

/**
 * `GET /v1/account`: who the calling key belongs to, its tier and quota. `GET /v1/account/chain`:
 * the account's hash chain, a page at a time (an extension beyond the spec's fourteen calls).
 */
export class AccountApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("status", "/v1/account", { success: Envelope(AccountStatus) }),
    HttpApiEndpoint.get("chain", "/v1/account/chain", {
      query: ChainRequest,
      success: Envelope(Results.ChainPage),
      error: [InvalidRequest, Unavailable]
    }).annotate(
      OpenApi.Description,
      "The calling account's hash chain, newest first: its capture and deletion entries as signed " +
        "(hashes only, never content), to verify offline against the keys of /.well-known/jwks.json — " +
        "each entry's signature over its entry_hash, and its prev_hash equal to the entry_hash of the " +
        "entry one seq lower (64 zeros for seq 1). Page with `before`: the `next_before` of the previous " +
        "page. An extension beyond the v1 specification's fourteen calls."
    )
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
