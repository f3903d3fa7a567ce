import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

export const InsightHandlers = HttpApiBuilder.group(UmoApi, "insight", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    return handlers
      .handle("match", ({ payload }) => Effect.flatMap(memory.compare(payload), envelope))
      .handle("explain", ({ params, query }) => Effect.flatMap(memory.explain(params.id, query), envelope))
  })
)
