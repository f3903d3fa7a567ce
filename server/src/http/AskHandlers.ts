import { ExtractiveAnswerModel } from "@umo/plugins"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { Unprocessable } from "../api/Errors.js"
import { UmoApi } from "../api/UmoApi.js"
import { Recall } from "../services/Recall.js"
import { envelope } from "./RequestContext.js"

const defaultModel = ExtractiveAnswerModel.extractiveModelId

/** The models `/v1/ask` takes: the extractive default runs here; no LLM weights ship with UMO. */
const models = {
  local: [{ id: defaultModel, default: true }],
  cloud: [] as Array<{ id: string; requires_key: boolean }>
}

export const AskHandlers = HttpApiBuilder.group(UmoApi, "ask", (handlers) =>
  Effect.gen(function* () {
    const recall = yield* Recall
    return handlers
      .handle("models", () => envelope(models))
      .handle("ask", ({ payload }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const question = payload.question.trim()
          if (question.length === 0) return yield* new Unprocessable({ detail: "question is empty" })
          if (question.length > 2_000)
            return yield* new Unprocessable({ detail: "question is longer than 2,000 characters" })
          const contextSize = payload.context_size ?? 5
          if (!Number.isInteger(contextSize) || contextSize < 1 || contextSize > 20) {
            return yield* new Unprocessable({ detail: "context_size must be an integer from 1 to 20" })
          }
          const model = payload.model ?? defaultModel
          if (model !== defaultModel) {
            return yield* new Unprocessable({
              detail: `unknown model "${model}"; GET /v1/ask/models lists the models this service offers`
            })
          }
          const found = yield* recall.search(account.account_id, question, { limit: contextSize })
          const contexts = found.map((hit, i) => ({
            index: i + 1,
            umo_id: hit.memory.umo_id,
            content: hit.memory.content,
            summary: hit.memory.summary,
            timestamp: hit.memory.timestamp,
            similarity: hit.score
          }))
          const answer = ExtractiveAnswerModel.answer({ question, contexts })
          return yield* envelope({ ...answer, model })
        })
      )
  })
)
