import { Ledger } from "@umo/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"
import { storeFailure } from "../services/Memories.js"

export const SystemHandlers = HttpApiBuilder.group(UmoApi, "system", (handlers) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    return handlers
      .handle("health", () => Effect.succeed({ status: "healthy" as const }))
      .handle("signingKeys", () =>
        ledger.signingKeys.pipe(
          Effect.map(({ keys, rotations }) => ({
            keys: keys as ReadonlyArray<Record<string, unknown>>,
            rotations: rotations ?? []
          })),
          Effect.catch(storeFailure)
        )
      )
  })
)
