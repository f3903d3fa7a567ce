import { AnswerModels } from "@umo/core"
import { asksAboutThePast } from "@umo/plugins/answer"
import { Effect } from "effect"
import { decodeRequest, InvalidRequest, ProviderFailed, Unavailable } from "../Errors.js"
import { selectionOf } from "../Filters.js"
import { AskRequest } from "../Requests.js"
import type { AskAnswer, ModelList } from "../Results.js"
import type * as Recall from "../recall/Recall.js"
import { slotParts } from "../updates/Facts.js"
import * as LaterRelated from "../updates/LaterRelated.js"

const decodeAsk = decodeRequest(AskRequest, "request body")

/**
 * Answers questions from an account's memories through the `AnswerModels` port: the question is
 * searched like any query, the best memories are handed to the chosen model as numbered contexts,
 * and the model answers with `[n]` citations of them.
 */
export const make = (recall: Recall.Recall) =>
  Effect.gen(function* () {
    const registry = yield* AnswerModels

    const models: ModelList = {
      local: registry.models
        .filter((m) => m.kind === "local")
        .map((m) => ({
          id: m.id,
          method: m.method,
          available: m.unavailable === undefined,
          ...(m.unavailable === undefined ? {} : { detail: m.unavailable }),
          ...(m.id === registry.defaultId ? { default: true } : {})
        })),
      cloud: registry.models
        .filter((m) => m.kind === "cloud")
        .map((m) => ({ id: m.id, method: m.method, requires_key: true }))
    }

    const answer = (accountId: string, input: unknown) =>
      Effect.gen(function* () {
        const request = yield* decodeAsk(input)
        const id = request.model ?? registry.defaultId
        const model = registry.models.find((m) => m.id === id)
        if (model === undefined) {
          return yield* new InvalidRequest({
            detail: `invalid request body: model: must be one of ${registry.models.map((m) => m.id).join(", ")} (GET /v1/ask/models)`
          })
        }
        if (model.kind === "cloud" && request.provider_key === undefined) {
          return yield* new InvalidRequest({
            detail: `invalid request body: provider_key: is required for ${model.id}: a cloud model runs with your own provider key`
          })
        }
        if (model.unavailable !== undefined) {
          return yield* new InvalidRequest({
            detail: `invalid request body: model: ${model.id} is not available on this server: ${model.unavailable}`
          })
        }
        const question = request.question.trim()
        // A question about an earlier state of things is answered from replaced memories too
        // (each ranked just below what replaced it), unless the caller chose.
        const selection = selectionOf(request)
        const { hits } = yield* recall.search(accountId, question, {
          limit: request.context_size ?? 5,
          rerank: true,
          ...selection,
          includeSuperseded: request.include_superseded ?? asksAboutThePast(question)
        })
        const contexts = hits.map((hit, i) => ({
          index: i + 1,
          umo_id: hit.memory.umo_id,
          content: hit.memory.content,
          summary: hit.memory.summary,
          timestamp: hit.memory.timestamp,
          similarity: hit.similarity,
          outdated: hit.outdated,
          current: hit.current,
          facts: hit.facts.map((fact) => ({ ...slotParts(fact.slot), value: fact.value, mode: fact.mode }))
        }))
        const answered = yield* model
          .answer({ question, contexts, providerKey: request.provider_key })
          .pipe(
            Effect.catch((e) =>
              Effect.fail(
                e.reason === "MissingKey" || e.reason === "NotInstalled"
                  ? new InvalidRequest({ detail: e.detail })
                  : e.reason === "Busy" || e.reason === "TimedOut"
                    ? new Unavailable({ detail: e.detail })
                    : new ProviderFailed({ detail: e.detail })
              )
            )
          )
        const linked = new Map(hits.map((hit) => [hit.memory.umo_id, hit.laterRelated]))
        return {
          ...answered,
          citations: answered.citations.map((c) => ({
            ...c,
            later_related: (linked.get(c.umo_id) ?? []).map(LaterRelated.asResult)
          })),
          model: model.id
        } satisfies AskAnswer
      })

    return { models, answer }
  })
