import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

export const AskHandlers = HttpApiBuilder.group(UmoApi, "ask", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    return handlers
      .handle("models", () => Effect.flatMap(memory.models, envelope))
      .handle("ask", ({ payload }) => Effect.flatMap(memory.answer(payload), envelope))
  })
)
