import { randomBytes } from "node:crypto"
import { isUmoId, storableText, type Webhook, WebhookStore, webhookEvents } from "@umo/core"
import { Effect, Option } from "effect"
import { decodeRequest, MemoryNotFound, storeUnavailable } from "../Errors.js"
import { WebhookRequest } from "../Requests.js"
import type { CreatedWebhook, WebhookInfo } from "../Results.js"

const decodeWebhook = decodeRequest(WebhookRequest, "request body")

const webhookNotFound = (id: string) => new MemoryNotFound({ detail: `no webhook with id ${id}` })

const infoOf = ({ account_id: _, ...webhook }: Webhook): WebhookInfo => ({
  ...webhook,
  events: [...webhook.events]
})

/** The account's webhooks: added (with a secret of their own), listed, deleted. */
export const make = Effect.gen(function* () {
  const store = yield* WebhookStore

  const create = (accountId: string, input: unknown) =>
    Effect.gen(function* () {
      const request = yield* decodeWebhook(input)
      const secret = `whsec_${randomBytes(24).toString("base64url")}`
      const webhook = yield* store
        .create(accountId, {
          url: storableText(request.url),
          name: request.name === undefined ? null : storableText(request.name),
          events: request.events ?? webhookEvents,
          secret
        })
        .pipe(Effect.catch(storeUnavailable))
      return { ...infoOf(webhook), secret } satisfies CreatedWebhook
    })

  const list = (accountId: string) =>
    Effect.map(store.list(accountId).pipe(Effect.catch(storeUnavailable)), (webhooks) => ({
      webhooks: webhooks.map(infoOf)
    }))

  const remove = (accountId: string, id: string) =>
    Effect.gen(function* () {
      // A webhook's id is a UUID as a memory's is: anything else is as unknown as a missing one.
      if (!isUmoId(id.toLowerCase())) return yield* webhookNotFound(id)
      const removed = yield* store.remove(accountId, id.toLowerCase()).pipe(Effect.catch(storeUnavailable))
      return Option.isNone(removed) ? yield* webhookNotFound(id) : infoOf(removed.value)
    })

  return { create, list, remove }
})
