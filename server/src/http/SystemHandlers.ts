import { Memory } from "@umo/memory"
import { Reembedder, SearchIndex } from "@umo/plugins"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"

export const SystemHandlers = HttpApiBuilder.group(UmoApi, "system", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    const index = yield* SearchIndex
    const reembedding = yield* Reembedder
    return handlers
      .handle("health", () =>
        Effect.zipWith(index.status, reembedding.status, (status, reembedding) => ({
          status: "healthy" as const,
          reembedding,
          index: {
            serving: status.serving,
            loading: status.loading,
            memories: status.memories,
            held_mb: Math.round((status.bytes / 2 ** 20) * 10) / 10,
            budget_mb: Math.round(status.budgetBytes / 2 ** 20),
            evictions: status.evictions,
            shard: status.shard
          }
        }))
      )
      .handle("signingKeys", () => memory.signingKeys)
  })
)
