/**
 * Mem0's webhooks (`/api/v1/webhooks/…`) as UMO's: a project is the key's account, Mem0's event
 * types are UMO's events (`memory_add` → memory.added; `memory_update` → memory.updated and
 * memory.superseded; `memory_delete` → memory.deleted and memory.expired), and deliveries are
 * UMO's (JSON events in chain order, signed with the secret the create answers). Changing a
 * webhook in place is refused: delete it and add another.
 * @module
 */
import { Memory, type Results } from "@umo/memory"
import { Effect } from "effect"
import { checkFields, clientDefaults, invalid } from "./Mem0Fields.js"
import type { Mem0Call } from "./Mem0Request.js"

const events = {
  memory_add: ["memory.added"],
  memory_update: ["memory.updated", "memory.superseded"],
  memory_delete: ["memory.deleted", "memory.expired"]
} as const

/** A UMO webhook as Mem0 shows one, with UMO's own fields beside. */
const asMem0 = (w: Results.WebhookInfo, project: string) => ({
  webhook_id: w.webhook_id,
  name: w.name,
  url: w.url,
  project,
  event_types: Object.entries(events)
    .filter(([, umo]) => umo.some((e) => w.events.includes(e)))
    .map(([mem0]) => mem0),
  is_active: true,
  created_at: w.created_at,
  updated_at: w.created_at,
  events: w.events
})

export const createWebhook: Mem0Call = (request) =>
  Effect.gen(function* () {
    yield* Effect.fromResult(
      checkFields(request.body, { ...clientDefaults, url: "use", name: "use", event_types: "use" })
    )
    const { url, name } = request.body
    const types = request.body["event_types"] ?? Object.keys(events)
    if (!Array.isArray(types) || types.length === 0 || types.some((t) => !Object.hasOwn(events, String(t))))
      return yield* invalid("event_types", `must be a list of ${Object.keys(events).join(", ")}`)
    const created = yield* Memory.use((memory) =>
      memory.createWebhook({
        url: url as string,
        ...(typeof name === "string" && name.length > 0 ? { name } : {}),
        events: types.flatMap((t) => events[t as keyof typeof events])
      })
    )
    return { ...asMem0(created, request.params[0]!), secret: created.secret }
  })

export const listWebhooks: Mem0Call = (request) =>
  Effect.map(
    Memory.use((memory) => memory.webhooks),
    ({ webhooks }) => webhooks.map((w) => asMem0(w, request.params[0]!))
  )

export const deleteWebhook: Mem0Call = (request) =>
  Effect.map(
    Memory.use((memory) => memory.deleteWebhook(request.params[0]!)),
    () => ({ message: "Webhook deleted successfully" })
  )
