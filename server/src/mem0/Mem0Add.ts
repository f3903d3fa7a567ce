/**
 * Mem0's `add` (`POST /v3/memories/add/`, and the legacy `POST /v1/memories/`): the messages'
 * texts captured as one batch of the Memory service, and Mem0's events told from what it did.
 *
 * The events describe the change to the current memories, so applying them in order to a copy of
 * the memories Mem0-style gives what UMO's default reads show:
 * - a memory stored and current → `ADD`;
 * - each memory it superseded → `DELETE`, with that memory's id and text and `superseded_by`
 *   (it leaves the default reads; it stays readable by id, in the history, and provable);
 * - a repeat of a current memory (nothing stored; UMO's `duplicate_of`) → `NONE` with that
 *   memory's id; so is a memory stored already outdated by a newer one the account holds
 *   (it is in the history, not among the current memories), with `superseded_by`.
 * @module
 */
import { CaptureRequest, decodeRequest, Memory, MemoryNotFound, type Results } from "@umo/memory"
import { Effect, Result } from "effect"
import {
  checkFields,
  clientDefaults,
  customCategoriesOf,
  expiryOf,
  type FieldRule,
  inMem0Words,
  instantOf,
  invalid,
  isObject,
  Mem0Refused,
  missingFeatures,
  unsupported
} from "./Mem0Fields.js"
import { entityFields } from "./Mem0Filters.js"
import { type TextMessage, textMessages } from "./Mem0Messages.js"
import type { Mem0Call } from "./Mem0Request.js"
import { fromRecord, type MemoryFacts, type MemoryObject, memoryObject } from "./Mem0Shapes.js"

const addFields: Readonly<Record<string, FieldRule>> = {
  ...clientDefaults,
  ...missingFeatures,
  messages: "use",
  user_id: "use",
  agent_id: "use",
  run_id: "use",
  filters: "use",
  metadata: "use",
  infer: "use",
  timestamp: "use",
  expiration_date: "use",
  immutable: "use",
  custom_categories: "use",
  categories: "use"
}

interface Scope {
  user_id?: unknown
  agent_id?: unknown
  run_id?: unknown
}

/** Whose memories these are: the ids top-level (as the clients send them) or in `filters` (as Mem0's docs show). */
export const scopeOf = (body: Readonly<Record<string, unknown>>): Result.Result<Scope, Mem0Refused> => {
  const filters = body["filters"] ?? {}
  if (!isObject(filters))
    return Result.fail(invalid("filters", "must be an object naming user_id, agent_id or run_id"))
  const scope: Scope = {}
  const set = (field: keyof Scope, value: unknown, at: string): Mem0Refused | undefined => {
    if (value === null || value === undefined) return undefined
    if (scope[field] !== undefined && scope[field] !== value)
      return invalid(at, `names another ${field} than the request already did`)
    scope[field] = value
    return undefined
  }
  for (const [key, value] of Object.entries(filters)) {
    const field = entityFields[key]
    if (key === "app_id" || key === "appId")
      return Result.fail(unsupported(`filters.${key}`, "UMO's scopes are user_id, agent_id and run_id"))
    if (field === undefined)
      return Result.fail(
        invalid(
          `filters.${key}`,
          "add takes user_id, agent_id and run_id in filters: whose memories these are"
        )
      )
    const refused = set(field, value, `filters.${key}`)
    if (refused) return Result.fail(refused)
  }
  for (const field of ["user_id", "agent_id", "run_id"] as const) {
    const refused = set(field, body[field], field)
    if (refused) return Result.fail(refused)
  }
  return Result.succeed(scope)
}

const decodeCapture = decodeRequest(CaptureRequest, "request body")

/** UMO names the run a session, and the expiration date `expires_at`: a refusal names them as the caller did. */
const asMem0Names = (detail: string) =>
  inMem0Words(detail, [
    [/\bsession_id\b/g, "run_id"],
    [/\bexpires_at\b/g, "expiration_date"]
  ])

/** The batch's items: one capture per message, checked first, so an add is stored whole or refused whole. */
const itemsOf = (body: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    yield* Effect.fromResult(checkFields(body, addFields))
    const scope = yield* Effect.fromResult(scopeOf(body))
    const messages = yield* Effect.fromResult(textMessages(body["messages"]))
    const metadata = body["metadata"] ?? {}
    if (!isObject(metadata)) return yield* invalid("metadata", "must be an object")
    const infer = body["infer"]
    if (infer !== undefined && infer !== null && typeof infer !== "boolean")
      return yield* invalid("infer", "must be true or false")
    const timestamp =
      body["timestamp"] === undefined || body["timestamp"] === null
        ? undefined
        : yield* Effect.fromResult(instantOf(body["timestamp"], "timestamp"))
    const expiresAt = yield* Effect.fromResult(expiryOf(body["expiration_date"]))
    const immutable = body["immutable"] ?? false
    if (typeof immutable !== "boolean") return yield* invalid("immutable", "must be true or false")
    const customCategories = yield* Effect.fromResult(customCategoriesOf(body["custom_categories"]))
    // Mem0's `categories` on an add: the names to file the memories under, as given ([] is none).
    const named = body["categories"] ?? undefined
    if (named !== undefined && (!Array.isArray(named) || named.some((c) => typeof c !== "string")))
      return yield* invalid("categories", "must be a list of category names")
    const item = (message: Pick<TextMessage, "content" | "role">) => ({
      content: message.content,
      ...(scope.user_id === undefined ? {} : { user_id: scope.user_id }),
      ...(scope.agent_id === undefined ? {} : { agent_id: scope.agent_id }),
      ...(scope.run_id === undefined ? {} : { session_id: scope.run_id }),
      // The role says who said it; the caller's own `role` key, if any, is kept instead.
      metadata: { role: message.role, ...metadata },
      ...(timestamp === undefined ? {} : { timestamp }),
      // Mem0's `infer: false` stores the messages as they are; UMO always does, and this also
      // stops it from superseding the memories they restate.
      ...(infer === false ? { infer_updates: false } : {}),
      ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
      ...(immutable ? { immutable: true } : {}),
      ...(customCategories === undefined ? {} : { custom_categories: customCategories }),
      ...(named === undefined || named.length === 0 ? {} : { categories: named as Array<string> })
    })
    // The fields all items share, checked once with a stand-in text so a refusal names them alone.
    yield* decodeCapture(item({ content: "-", role: "user" })).pipe(
      Effect.mapError((error) => new Mem0Refused({ status: 422, detail: asMem0Names(error.detail) }))
    )
    for (const message of messages)
      yield* decodeCapture(item(message)).pipe(
        Effect.mapError(
          (error) =>
            new Mem0Refused({
              status: 422,
              detail: error.detail.replace(
                /^invalid request body: /,
                `invalid request body: messages.${message.index}.`
              )
            })
        )
      )
    return { messages, items: messages.map(item) }
  })

/** A memory as the answer shows it: as stored, or (deleted meanwhile) as it was sent. */
const shownAs = (umoId: string, sent: MemoryFacts) =>
  Memory.use((memory) => memory.get(umoId)).pipe(
    Effect.map(fromRecord),
    Effect.catchIf(
      (error) => error instanceof MemoryNotFound,
      () => Effect.succeed(memoryObject({ ...sent, umo_id: umoId }))
    )
  )

/** The event entries of one captured message (see the module's JSDoc). */
const eventsOf = (result: Results.BatchResultItem, sent: MemoryFacts, storedHere: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const entry = (shown: MemoryObject, event: string, extra: Record<string, unknown> = {}) => ({
      ...shown,
      event,
      data: { memory: shown.memory },
      ...extra
    })
    if (result.duplicate_of !== undefined)
      return [entry(yield* shownAs(result.duplicate_of, sent), "NONE", { duplicate_of: result.duplicate_of })]
    const umoId = result.umo_id!
    const own = yield* shownAs(umoId, sent)
    const outdated =
      result.superseded_by !== undefined &&
      result.superseded_by !== null &&
      !storedHere.has(result.superseded_by)
    if (outdated) return [entry(own, "NONE")]
    const superseded = yield* Effect.forEach(result.supersedes ?? [], (old) =>
      Effect.map(shownAs(old, { ...sent, text: "" }), (shown) =>
        entry({ ...shown, superseded_by: umoId }, "DELETE")
      )
    )
    return [entry(own, "ADD"), ...superseded]
  })

export const add: Mem0Call = (request) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    const { messages, items } = yield* itemsOf(request.body)
    const { results } = yield* memory.batch({ items })
    const failed = results.find((r) => !r.success)
    if (failed !== undefined) {
      const stored = results.filter((r) => r.success).map((r) => r.umo_id)
      return yield* new Mem0Refused({
        status: failed.error?.status ?? 500,
        detail: `messages.${messages[failed.index]!.index}: ${failed.error?.detail ?? "not stored"}${
          stored.length > 0 ? `; the other messages were stored: ${stored.join(", ")}` : ""
        }`
      })
    }
    const storedHere = new Set(results.flatMap((r) => (r.umo_id === null ? [] : [r.umo_id])))
    const events = yield* Effect.forEach(results, (result, i) => {
      const item = items[i]!
      return eventsOf(
        result,
        {
          umo_id: "",
          text: item.content,
          user_id: (item.user_id as string | undefined) ?? null,
          agent_id: (item.agent_id as string | undefined) ?? null,
          session_id: (item.session_id as string | undefined) ?? null,
          metadata: item.metadata,
          timestamp: item.timestamp ?? ""
        },
        storedHere
      )
    })
    return { results: events.flat() }
  })
