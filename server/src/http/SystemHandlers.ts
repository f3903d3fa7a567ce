import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"

export const SystemHandlers = HttpApiBuilder.group(UmoApi, "system", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    return handlers
      .handle("health", () => Effect.succeed({ status: "healthy" as const }))
      .handle("signingKeys", () => memory.signingKeys)
  })
)
