import { Memory } from "@umo/memory"
import { SearchIndex } from "@umo/plugins"
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

export const AccountHandlers = HttpApiBuilder.group(UmoApi, "account", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    const index = yield* SearchIndex
    return handlers
      .handle("status", () =>
        Effect.gen(function* () {
          const { account, key } = yield* CurrentAccount
          const info = yield* memory.account
          // Which server of a sharded fleet holds the account's index: a load balancer that asks
          // this call first routes the account's requests by it (docs/deployment.md).
          const shard = index.shardOf(account.account_id)
          if (shard !== null)
            yield* HttpEffect.appendPreResponseHandler((_, response) =>
              Effect.succeed(HttpServerResponse.setHeader(response, "umo-index-shard", shard))
            )
          return yield* envelope({
            ...info,
            key: { key_id: key.key_id, tier: account.tier, status: key.status }
          })
        })
      )
      .handle("chain", ({ query }) => Effect.flatMap(memory.chain(query), envelope))
      .handle("categories", () => Effect.flatMap(memory.categories, envelope))
      .handle("setCategories", ({ payload }) => Effect.flatMap(memory.setCategories(payload), envelope))
      .handle("createWebhook", ({ payload }) => Effect.flatMap(memory.createWebhook(payload), envelope))
      .handle("webhooks", () => Effect.flatMap(memory.webhooks, envelope))
      .handle("deleteWebhook", ({ params }) => Effect.flatMap(memory.deleteWebhook(params.id), envelope))
  })
)
