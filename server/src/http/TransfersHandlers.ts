import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

/** Export and import: each one call of the Memory service, the body and the response streamed. */
export const TransfersHandlers = HttpApiBuilder.group(UmoApi, "transfers", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    return handlers
      .handle("export", ({ query }) => memory.exportMemories(query))
      .handle("import", ({ query, payload }) =>
        Effect.flatMap(memory.importMemories(payload, query), envelope)
      )
  })
)
