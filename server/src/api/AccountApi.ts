import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { AccountStatus, Envelope } from "./Schemas.js"

/** `GET /v1/account`: who the calling key belongs to, its tier and quota. */
export class AccountApi extends HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("status", "/v1/account", { success: Envelope(AccountStatus) }))
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
