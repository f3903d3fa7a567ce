import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"

export const SystemHandlers = HttpApiBuilder.group(UmoApi, "system", (handlers) =>
  handlers.handle("health", () => Effect.succeed({ status: "healthy" as const }))
)
