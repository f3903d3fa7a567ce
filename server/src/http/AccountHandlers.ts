import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

export const AccountHandlers = HttpApiBuilder.group(UmoApi, "account", (handlers) =>
  handlers.handle("status", () =>
    Effect.gen(function* () {
      const { account, key } = yield* CurrentAccount
      return yield* envelope({
        account: { user_id: account.account_id, workspace_id: account.workspace_id, name: account.name },
        key: { key_id: key.key_id, tier: account.tier, status: key.status },
        // The beta enforces no quota (spec: umo_limit and search_limit are null).
        plan: { tier: account.tier, umo_limit: null, search_limit: null, beta: true }
      })
    })
  )
)
