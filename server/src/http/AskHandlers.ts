import { CloudAnswerModel, ExtractiveAnswerModel } from "@umo/plugins"
import { Config, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { BadGateway, Unprocessable } from "../api/Errors.js"
import { UmoApi } from "../api/UmoApi.js"
import { Recall } from "../services/Recall.js"
import { envelope } from "./RequestContext.js"

const defaultModel = ExtractiveAnswerModel.extractiveModelId

/**
 * The models `/v1/ask` takes: the extractive default runs here (no LLM weights ship with UMO);
 * cloud models run on the provider with the caller's own key.
 */
const models = {
  local: [{ id: defaultModel, default: true }],
  cloud: CloudAnswerModel.cloudModels.map((m) => ({ id: m.id, requires_key: true }))
}

export const AskHandlers = HttpApiBuilder.group(UmoApi, "ask", (handlers) =>
  Effect.gen(function* () {
    const recall = yield* Recall
    const endpoints = {
      openaiBaseUrl: yield* Config.String("OPENAI_BASE_URL").pipe(
        Config.withDefault("https://api.openai.com")
      ),
      anthropicBaseUrl: yield* Config.String("ANTHROPIC_BASE_URL").pipe(
        Config.withDefault("https://api.anthropic.com")
      )
    }
    return handlers
      .handle("models", () => envelope(models))
      .handle("ask", ({ payload }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          // The request schema has checked the question, the model and its key, and context_size.
          const question = payload.question.trim()
          const contextSize = payload.context_size ?? 5
          const model = payload.model ?? defaultModel
          const cloud = CloudAnswerModel.cloudModels.find((m) => m.id === model)
          const { hits: found } = yield* recall.search(account.account_id, question, { limit: contextSize })
          const contexts = found.map((hit, i) => ({
            index: i + 1,
            umo_id: hit.memory.umo_id,
            content: hit.memory.content,
            summary: hit.memory.summary,
            timestamp: hit.memory.timestamp,
            similarity: hit.similarity
          }))
          const answer = cloud
            ? yield* CloudAnswerModel.answer(cloud, endpoints, {
                question,
                contexts,
                providerKey: payload.provider_key
              }).pipe(
                Effect.catch((e) =>
                  e.reason === "MissingKey"
                    ? Effect.fail(new Unprocessable({ detail: e.detail }))
                    : Effect.fail(new BadGateway({ detail: e.detail }))
                )
              )
            : ExtractiveAnswerModel.answer({ question, contexts })
          return yield* envelope({ ...answer, model })
        })
      )
  })
)
