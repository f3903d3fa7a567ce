import { Ledger } from "@umo/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"

export const SystemHandlers = HttpApiBuilder.group(UmoApi, "system", (handlers) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const keys = { keys: [ledger.publicKeyJwk as Record<string, unknown>] }
    return handlers
      .handle("health", () => Effect.succeed({ status: "healthy" as const }))
      .handle("signingKeys", () => Effect.succeed(keys))
  })
)
