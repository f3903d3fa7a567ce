/**
 * Mem0's calls on one memory and on entities, each a call of the Memory service: the ping, get,
 * update (a new version superseding the memory: the answer has the new id), delete, history,
 * users (UMO's scopes) and delete users (erasing a scope).
 * @module
 */
import { Memory, type Results } from "@umo/memory"
import { Effect } from "effect"
import {
  checkFields,
  clientDefaults,
  expiryOf,
  instantOf,
  invalid,
  isObject,
  refusalInMem0Words,
  unsupported
} from "./Mem0Fields.js"
import { queryObject } from "./Mem0Memories.js"
import type { Mem0Call } from "./Mem0Request.js"
import { entityOf, fromRecord, historyEntries, pageLink, scopeField } from "./Mem0Shapes.js"

/**
 * `GET /v1/ping/`: the key's account. Mem0's clients need a non-empty string organization and
 * project (Python refuses to start without them); UMO has one account per key, so both are it.
 */
export const ping: Mem0Call = (request) =>
  Effect.succeed({
    status: "ok",
    org_id: request.account.account_id,
    project_id: request.account.account_id,
    user_email: null,
    name: request.account.name
  })

export const get: Mem0Call = (request) =>
  Effect.map(
    Memory.use((memory) => memory.get(request.params[0]!)),
    fromRecord
  )

/**
 * `update`: a new version with the new text or metadata (metadata replaces the old whole), which
 * supersedes the memory. UMO keeps both, so the answer is the new version, with its own id and
 * `supersedes` naming the one asked about.
 */
export const update: Mem0Call = (request) =>
  Effect.gen(function* () {
    const body = request.body
    const id = request.params[0]!
    yield* Effect.fromResult(
      checkFields(body, {
        ...clientDefaults,
        text: "use",
        metadata: "use",
        timestamp: "use",
        expiration_date: "use"
      })
    )
    const text = body["text"] ?? undefined
    const metadata = body["metadata"] ?? undefined
    if (metadata !== undefined && !isObject(metadata)) return yield* invalid("metadata", "must be an object")
    // Python's client sends `expiration_date: None` with every update: null leaves the expiry as it is.
    const expiresAt = yield* Effect.fromResult(expiryOf(body["expiration_date"]))
    const memory = yield* Memory
    if (text === undefined && metadata === undefined) {
      if (body["timestamp"] !== undefined && body["timestamp"] !== null)
        return yield* invalid(
          "text",
          "give text, metadata or both: UMO changes a memory by a new version of them"
        )
      // Nothing to change, or only when it expires: moved in place, the same memory.
      if (expiresAt !== undefined)
        yield* memory.update(id, { expires_at: expiresAt }).pipe(Effect.mapError(asMem0Words))
      return fromRecord(yield* memory.get(id))
    }
    const timestamp =
      body["timestamp"] === undefined || body["timestamp"] === null
        ? undefined
        : yield* Effect.fromResult(instantOf(body["timestamp"], "timestamp"))
    const captured = yield* memory
      .update(id, {
        ...(text === undefined ? {} : { content: text as string }),
        ...(metadata === undefined ? {} : { metadata: metadata as Record<string, never> }),
        ...(timestamp === undefined ? {} : { timestamp }),
        ...(expiresAt === undefined ? {} : { expires_at: expiresAt })
      })
      .pipe(Effect.mapError(asMem0Words))
    return fromRecord(yield* memory.get(captured.umo_id))
  })

/** UMO's `content` is the `text` the caller sent, and its `expires_at` the `expiration_date`. */
const asMem0Words = refusalInMem0Words([
  [/\bcontent\b/g, "text"],
  [/\bexpires_at\b/g, "expiration_date"]
])

/** The versions a memory superseded, and those they superseded, in turn (Mem0's linked memories). */
const olderVersions = (id: string, versions: ReadonlyArray<Results.MemoryRecord>) => {
  const byId = new Map(versions.map((v) => [v.umo_id, v]))
  const found = new Set<string>()
  const walk = (v: Results.MemoryRecord | undefined) => {
    for (const older of v?.supersedes ?? [])
      if (!found.has(older)) {
        found.add(older)
        walk(byId.get(older))
      }
  }
  walk(byId.get(id))
  return [...found]
}

/**
 * `delete`: the memory forgotten, with its signed receipt. With `delete_linked=true`, also every
 * older version it superseded, in turn (each with its own receipt).
 */
export const remove: Mem0Call = (request) =>
  Effect.gen(function* () {
    const id = request.params[0]!
    const fields = queryObject(request.query)
    yield* Effect.fromResult(checkFields(fields, { ...clientDefaults, delete_linked: "use" }))
    const linked = fields["delete_linked"]
    if (linked !== undefined && linked !== "true" && linked !== "false")
      return yield* invalid("delete_linked", "must be true or false", "query string")
    const memory = yield* Memory
    const older = linked === "true" ? olderVersions(id, (yield* memory.history(id)).versions) : []
    const receipt = yield* memory.forget(id)
    const cascade = yield* Effect.forEach(older, (old) => memory.forget(old))
    return {
      message: "Memory deleted successfully!",
      umo_id: receipt.umo_id,
      receipt: receipt.receipt,
      ...(linked === "true"
        ? {
            cascade_count: cascade.length,
            linked: cascade.map((c) => ({ umo_id: c.umo_id, receipt: c.receipt }))
          }
        : {})
    }
  })

export const history: Mem0Call = (request) =>
  Effect.map(
    Memory.use((memory) => memory.history(request.params[0]!)),
    historyEntries
  )

const maxPageSize = 100

/** `users`: the account's users, agents and runs (UMO's scopes), most recently active first. */
export const users: Mem0Call = (request) =>
  Effect.gen(function* () {
    const fields = queryObject(request.query)
    yield* Effect.fromResult(checkFields(fields, { ...clientDefaults, page: "use", page_size: "use" }))
    const page = Number(fields["page"] ?? 1)
    const size = Number(fields["page_size"] ?? maxPageSize)
    if (!Number.isInteger(page) || page < 1)
      return yield* invalid("page", "a whole number from 1", "query string")
    if (!Number.isInteger(size) || size < 1 || size > maxPageSize)
      return yield* invalid(
        "page_size",
        `UMO lists at most ${maxPageSize} entities a page: a whole number from 1 to ${maxPageSize}`,
        "query string"
      )
    const listed = yield* Memory.use((memory) => memory.scopes({ limit: size, offset: (page - 1) * size }))
    return {
      count: listed.total_count,
      next: listed.has_more ? pageLink(request.url, page + 1, size) : null,
      previous: page > 1 ? pageLink(request.url, page - 1, size) : null,
      results: listed.scopes.map(entityOf)
    }
  })

/** `delete_users`: an entity's memories, superseded ones too, erased (`DELETE /v2/entities/{type}/{name}/`). */
export const deleteEntity: Mem0Call = (request) =>
  Effect.gen(function* () {
    const [type, name] = request.params as [string, string]
    if (type === "app") return yield* unsupported("app", "UMO's scopes are user, agent and run")
    if (type !== "user" && type !== "agent" && type !== "run")
      return yield* invalid("type", "must be user, agent or run", "path")
    const erased = yield* Memory.use((memory) => memory.erase({ [scopeField[type]]: name }))
    return {
      message: "Entity deleted successfully!",
      deleted: erased.forgotten,
      umo_ids: erased.umo_ids,
      receipt: erased.receipt
    }
  })
