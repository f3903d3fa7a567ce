import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

export const AccountHandlers = HttpApiBuilder.group(UmoApi, "account", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    return handlers
      .handle("status", () =>
        Effect.gen(function* () {
          const { account, key } = yield* CurrentAccount
          const info = yield* memory.account
          return yield* envelope({
            ...info,
            key: { key_id: key.key_id, tier: account.tier, status: key.status }
          })
        })
      )
      .handle("chain", ({ query }) => Effect.flatMap(memory.chain(query), envelope))
  })
)
