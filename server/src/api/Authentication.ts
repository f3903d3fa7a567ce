import type { Account, ApiKeyRecord } from "@umo/core"
import { type MemoryAccount, Unavailable } from "@umo/memory"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { TooManyRequests, Unauthorized } from "./Errors.js"

/** The account and key behind the request's bearer key. */
export class CurrentAccount extends Context.Service<
  CurrentAccount,
  { readonly account: Account; readonly key: ApiKeyRecord }
>()("@umo/server/CurrentAccount") {}

/**
 * `Authorization: Bearer <API_KEY>` on every call but `/health`: resolves the key to its account
 * (401 when missing, unknown or revoked), which the call then acts for (`MemoryAccount`). The rate
 * limit (429) is applied by the request middleware, before it or, for a call that only reads, beside
 * its key lookup (`RateToken`); it is listed here so the API description shows it.
 */
export class Authentication extends HttpApiMiddleware.Service<
  Authentication,
  { provides: CurrentAccount | MemoryAccount }
>()("@umo/server/Authentication", {
  error: [Unauthorized, TooManyRequests, Unavailable],
  security: { bearer: HttpApiSecurity.bearer }
}) {}
