import {
  CategoriesRequest,
  ChainRequest,
  InvalidRequest,
  MemoryNotFound,
  Results,
  Unavailable,
  WebhookRequest
} from "@umo/memory"
import { Schema } from "effect"
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
    ),
    HttpApiEndpoint.get("categories", "/v1/account/categories", {
      success: Envelope(Results.CategoryListResult),
      error: [Unavailable]
    }).annotate(
      OpenApi.Description,
      "The categories new memories are filed under: the account's own list, or Mem0's default fifteen " +
        "(`origin`). Each memory gets the ones whose description is nearest in meaning (see docs/categories.md)."
    ),
    HttpApiEndpoint.put("setCategories", "/v1/account/categories", {
      payload: CategoriesRequest,
      success: Envelope(Results.CategoryListResult),
      error: [InvalidRequest, Unavailable]
    }).annotate(
      OpenApi.Description,
      "Sets the account's categories (name and description each; null: back to the default list) for the " +
        "memories captured from now on; memories already captured keep theirs."
    ),
    HttpApiEndpoint.post("createWebhook", "/v1/webhooks", {
      payload: WebhookRequest,
      success: Envelope(Results.CreatedWebhook),
      error: [InvalidRequest, Unavailable]
    }).annotate(
      OpenApi.Description,
      "Adds a webhook: from now on, the events it hears (memory.added, memory.updated, memory.superseded, " +
        "memory.deleted, memory.expired) are posted to its URL as JSON, in the order of the account's chain, at " +
        "least once (retried, 5 s doubling to an hour, until answered 2xx), each signed: `umo-signature: " +
        "t=<unix>,v1=<hex HMAC-SHA256 of '<t>.<body>' with the secret>`. The secret is shown in this answer only."
    ),
    HttpApiEndpoint.get("webhooks", "/v1/webhooks", {
      success: Envelope(Results.WebhookList),
      error: [Unavailable]
    }).annotate(OpenApi.Description, "The account's webhooks and how their deliveries stand (no secrets)."),
    HttpApiEndpoint.delete("deleteWebhook", "/v1/webhooks/:id", {
      params: Schema.Struct({ id: Schema.String }),
      success: Envelope(Results.WebhookInfo),
      error: [MemoryNotFound, Unavailable]
    }).annotate(OpenApi.Description, "Deletes a webhook: nothing more is posted to it.")
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
