import { type Embedder, Pipeline, type Plugin } from "@umo/core"
import { defaultPlugins } from "@umo/plugins"
import { Effect, Layer, Schema } from "effect"
import * as Answers from "./answer/Answers.js"
import * as Capture from "./capture/Capture.js"
import * as Changes from "./capture/Changes.js"
import { decodeRequest } from "./Errors.js"
import * as Sweeper from "./expiry/Sweeper.js"
import { selectionOf } from "./Filters.js"
import * as Insight from "./insight/Insight.js"
import { Memory, MemoryAccount } from "./Memory.js"
import * as Records from "./Records.js"
import { ExplainRequest, MatchRequest, SearchRequest } from "./Requests.js"
import type { AccountInfo, SearchResults } from "./Results.js"
import * as Recall from "./recall/Recall.js"
import * as Export from "./transfer/Export.js"
import * as Import from "./transfer/Import.js"
import * as LaterRelated from "./updates/LaterRelated.js"
import * as Delivery from "./webhooks/Delivery.js"
import * as Webhooks from "./webhooks/Webhooks.js"

export interface MemoryOptions {
  /**
   * The capture pipeline; default `defaultPlugins()`. A file's text is kept whole up to the capture
   * plugin's `maxLength` (1,000,000 characters by default); a text capture's limit is its request's.
   */
  readonly plugins?: ReadonlyArray<Plugin<Embedder>> | undefined
  /**
   * Embed, in the background as the service starts, what a first capture would otherwise wait
   * for (see `Capture.make`'s `warmUp`): the server does; an app that opens many short-lived
   * engines need not pay for it each time. Default false.
   */
  readonly warmUp?: boolean | undefined
}

/** The plugins' configuration could not make a pipeline; the message names the plugin. */
export class InvalidPlugins extends Schema.Error<InvalidPlugins>("InvalidPlugins")({
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

const decodeSearch = decodeRequest(SearchRequest, "request body")
const decodeMatch = decodeRequest(MatchRequest, "request body")
const decodeExplain = decodeRequest(ExplainRequest, "query string")

/** The account the call acts for. */
const accountId = Effect.map(Effect.service(MemoryAccount), (account) => account.account_id)

/**
 * The Memory service on its ports: MemoryStore, MemorySearch, MemoryProvenance and Ledger
 * (storage), Embedder, FileParser and AnswerModels, with the pipeline of `options.plugins`.
 */
export const make = (options: MemoryOptions = {}) =>
  Effect.gen(function* () {
    const pipeline = yield* Effect.try({
      try: () => Pipeline.make(options.plugins ?? defaultPlugins()),
      catch: (error) => new InvalidPlugins({ detail: error instanceof Error ? error.message : String(error) })
    })
    const captures = yield* Capture.make(pipeline)
    if (options.warmUp === true) yield* Effect.forkScoped(captures.warmUp)
    const changes = yield* Changes.make(captures)
    const recall = yield* Recall.make
    const answers = yield* Answers.make(recall)
    const insight = yield* Insight.make(pipeline)
    const records = yield* Records.make
    const exports = yield* Export.make(records.signingKeys)
    const imports = yield* Import.make(pipeline)
    const sweeper = yield* Sweeper.make()
    yield* sweeper.run(yield* Sweeper.sweepSecondsConfig)
    const webhooks = yield* Webhooks.make
    const delivery = yield* Delivery.make
    yield* delivery.run(yield* Delivery.pollMsConfig)

    return Memory.of({
      capture: (request, options) =>
        Effect.flatMap(accountId, (id) => captures.capture(id, request, options)),
      batch: (request, options) => Effect.flatMap(accountId, (id) => captures.batch(id, request, options)),
      upload: (file, options) => Effect.flatMap(accountId, (id) => captures.upload(id, file, options)),
      update: (umoId, request, options) =>
        Effect.flatMap(accountId, (id) => changes.update(id, umoId, request, options)),
      updateMany: (request, options) =>
        Effect.flatMap(accountId, (id) => changes.updateMany(id, request, options)),
      forgetMany: (request) => Effect.flatMap(accountId, (id) => records.forgetMany(id, request)),
      scopes: (request) => Effect.flatMap(accountId, (id) => records.scopes(id, request)),
      list: (request) => Effect.flatMap(accountId, (id) => records.list(id, request)),
      chain: (request) => Effect.flatMap(accountId, (id) => records.chain(id, request)),
      get: (umoId) => Effect.flatMap(accountId, (id) => records.get(id, umoId)),
      history: (umoId) => Effect.flatMap(accountId, (id) => records.history(id, umoId)),
      erase: (request) => Effect.flatMap(accountId, (id) => records.erase(id, request)),
      search: (input) =>
        Effect.gen(function* () {
          const request = yield* decodeSearch(input)
          // Every memory the ranking scored counts as a match; the first `limit` are returned.
          const { hits, total } = yield* recall.search(yield* accountId, request.query, {
            limit: request.limit ?? 5,
            rerank: request.rerank,
            ...selectionOf(request)
          })
          return {
            results: hits.map(({ memory, score, timesSaid, laterRelated }) => ({
              umo_id: memory.umo_id,
              content_text: memory.content,
              score,
              timestamp: memory.timestamp,
              times_said: timesSaid,
              source: memory.source,
              user_id: memory.user_id,
              agent_id: memory.agent_id,
              session_id: memory.session_id,
              metadata: memory.metadata,
              categories: memory.categories,
              superseded_by: memory.superseded_by,
              later_related: laterRelated.map(LaterRelated.asResult)
            })),
            total_count: total,
            has_more: total > hits.length
          } satisfies SearchResults
        }),
      answer: (request) => Effect.flatMap(accountId, (id) => answers.answer(id, request)),
      models: Effect.succeed(answers.models),
      compare: (input) =>
        Effect.gen(function* () {
          const request = yield* decodeMatch(input)
          const id = yield* accountId
          const threshold = request.threshold ?? 0.5
          const a = yield* records.stored(id, request.source_ulid)
          const b = yield* records.stored(id, request.candidate_ulid)
          const { breakdown, ...result } = yield* insight.match(id, a, b, threshold)
          return { ...result, threshold, ...(request.explain ? { breakdown } : {}) }
        }),
      explain: (umoId, input = {}) =>
        Effect.gen(function* () {
          const request = yield* decodeExplain(input)
          const id = yield* accountId
          return yield* insight.explain(id, yield* records.stored(id, umoId), request.query)
        }),
      proof: (umoId) => Effect.flatMap(accountId, (id) => records.proof(id, umoId)),
      forget: (umoId) => Effect.flatMap(accountId, (id) => records.forget(id, umoId)),
      categories: Effect.flatMap(accountId, records.categories),
      createWebhook: (request) => Effect.flatMap(accountId, (id) => webhooks.create(id, request)),
      webhooks: Effect.flatMap(accountId, webhooks.list),
      deleteWebhook: (webhookId) => Effect.flatMap(accountId, (id) => webhooks.remove(id, webhookId)),
      setCategories: (request) => Effect.flatMap(accountId, (id) => records.setCategories(id, request)),
      account: Effect.map(
        Effect.service(MemoryAccount),
        (account): AccountInfo => ({
          account: { user_id: account.account_id, workspace_id: account.workspace_id, name: account.name },
          // The beta enforces no quota (spec: umo_limit and search_limit are null).
          plan: { tier: account.tier, umo_limit: null, search_limit: null, beta: true }
        })
      ),
      signingKeys: records.signingKeys,
      exportMemories: (request) =>
        Effect.flatMap(Effect.service(MemoryAccount), (account) => exports.exportMemories(account, request)),
      importMemories: (input, request, onProgress) =>
        Effect.flatMap(accountId, (id) => imports.importMemories(id, input, request, onProgress)),
      sweepExpired: sweeper.sweep
    })
  })

/** The Memory service as a layer (see `make`). */
export const layer = (options: MemoryOptions = {}) => Layer.effect(Memory, make(options))
