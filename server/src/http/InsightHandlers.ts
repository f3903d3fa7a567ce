import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { UmoApi } from "../api/UmoApi.js"
import { Insight } from "../services/Insight.js"
import { Memories } from "../services/Memories.js"
import { withId } from "./MemoriesHandlers.js"
import { envelope } from "./RequestContext.js"

export const InsightHandlers = HttpApiBuilder.group(UmoApi, "insight", (handlers) =>
  Effect.gen(function* () {
    const insight = yield* Insight
    const memories = yield* Memories
    return handlers
      .handle("match", ({ payload }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const threshold = payload.threshold ?? 0.5
          const get = (id: string) => withId(id, (umoId) => memories.get(account.account_id, umoId))
          const a = yield* get(payload.source_ulid)
          const b = yield* get(payload.candidate_ulid)
          const { breakdown, ...result } = yield* insight.match(account.account_id, a, b, threshold)
          return yield* envelope({ ...result, threshold, ...(payload.explain ? { breakdown } : {}) })
        })
      )
      .handle("explain", ({ params, query }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const memory = yield* withId(params.id, (umoId) => memories.get(account.account_id, umoId))
          return yield* envelope(yield* insight.explain(account.account_id, memory, query.query))
        })
      )
  })
)
