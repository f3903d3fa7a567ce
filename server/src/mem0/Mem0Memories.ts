/**
 * Mem0's reads over many memories and its delete all: `search` (`POST /v3/memories/search/`, and
 * the legacy v2 and v1 paths), `get_all` (`POST /v3/memories/?page=&page_size=`, the legacy
 * `POST /v2/memories/` and `GET /v1/memories/?user_id=…`), `delete_all`
 * (`DELETE /v1/memories/?user_id=…`). Each is one call of the Memory service (get all also reads
 * each listed memory whole: a list shows summaries, Mem0 shows the text).
 * @module
 */
import { Memory, MemoryNotFound } from "@umo/memory"
import { Effect } from "effect"
import { scopeOf } from "./Mem0Add.js"
import {
  checkFields,
  clientDefaults,
  type FieldRule,
  invalid,
  Mem0Refused,
  missingFeatures,
  refused
} from "./Mem0Fields.js"
import { selectionOf } from "./Mem0Filters.js"
import type { Mem0Call, Mem0Request } from "./Mem0Request.js"
import { fromRecord, fromSearchResult, pageLink } from "./Mem0Shapes.js"
import { readStructured } from "./PythonLiteral.js"

/** What search and get all read besides `filters`: the legacy clients' top-level ids among them. */
const readFields: Readonly<Record<string, FieldRule>> = {
  ...clientDefaults,
  ...missingFeatures,
  filters: "use",
  metadata: "use",
  user_id: "use",
  agent_id: "use",
  run_id: "use",
  latest_only: "use",
  // An expired memory leaves every read at once and is erased (a signed erasure), so there is
  // none to show: the flag (which the JS client may send on every search) changes nothing.
  show_expired: "ignore"
}

const searchFields: Readonly<Record<string, FieldRule>> = {
  ...readFields,
  query: "use",
  top_k: "use",
  threshold: "use",
  fields: "use",
  // The cross-encoder rereads the best candidates (UMO's `rerank`).
  rerank: "use",
  // UMO ranks every search by its keywords (BM25) beside its meaning: asking for them changes nothing.
  keyword_search: "ignore"
}

const listFields: Readonly<Record<string, FieldRule>> = {
  ...readFields,
  page: "use",
  page_size: "use",
  start_date: "use",
  end_date: "use"
}

/** A switch of the body: true, false, or absent (undefined, as null is); anything else is a 422 naming it. */
const flag = (body: Readonly<Record<string, unknown>>, field: string) =>
  Effect.gen(function* () {
    const value = body[field]
    if (value === undefined || value === null) return undefined
    if (typeof value !== "boolean") return yield* invalid(field, "must be true or false")
    return value
  })

/** Which versions a read takes: Mem0's `latest_only: false` asks for the superseded ones too. */
const includeSuperseded = (body: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    return (yield* flag(body, "latest_only")) === false
  })

const wholeNumber = (value: unknown, field: string, min: number, max: number, rule: string, part?: string) =>
  Effect.gen(function* () {
    const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value
    if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max)
      return yield* invalid(field, rule, part)
    return n
  })

/** Mem0's default number of results; UMO's search returns at most 50. */
const defaultTopK = 10

export const search: Mem0Call = (request) =>
  Effect.gen(function* () {
    const body = request.body
    yield* Effect.fromResult(checkFields(body, searchFields))
    const limit =
      body["top_k"] === undefined || body["top_k"] === null
        ? defaultTopK
        : yield* wholeNumber(
            body["top_k"],
            "top_k",
            1,
            50,
            "UMO returns 1 to 50 results: a whole number from 1 to 50"
          )
    const threshold = body["threshold"] ?? 0
    if (typeof threshold !== "number" || !Number.isFinite(threshold))
      return yield* invalid("threshold", "must be a number: results scoring below it are left out")
    const fields = body["fields"]
    if (
      fields !== undefined &&
      fields !== null &&
      !(Array.isArray(fields) && fields.every((f) => typeof f === "string"))
    )
      return yield* invalid("fields", "must be a list of field names")
    const filters = yield* Effect.fromResult(selectionOf(body))
    const rerank = yield* flag(body, "rerank")
    const memory = yield* Memory
    const found = yield* memory.search({
      query: body["query"] as string,
      limit,
      ...(rerank === undefined ? {} : { rerank }),
      include_superseded: yield* includeSuperseded(body),
      ...(filters === undefined ? {} : { filters })
    })
    const results = found.results.filter((r) => r.score >= threshold).map(fromSearchResult)
    if (!Array.isArray(fields)) return { results }
    // The fields asked for, and the ids that make a result reachable.
    const kept = new Set(["id", "umo_id", ...(fields as Array<string>)])
    return {
      results: results.map((r) => Object.fromEntries(Object.entries(r).filter(([key]) => kept.has(key))))
    }
  })

/** Mem0's default page size; also the most UMO lists at once. */
const maxPageSize = 100

/** A page of memories: the body's selection, the page from the query string (or the body). */
const page = (request: Mem0Request, body: Readonly<Record<string, unknown>>, part?: string) =>
  Effect.gen(function* () {
    const pageAsked = request.query.get("page") ?? body["page"] ?? 1
    const sizeAsked = request.query.get("page_size") ?? body["page_size"] ?? maxPageSize
    const number = yield* wholeNumber(
      pageAsked,
      "page",
      1,
      Number.MAX_SAFE_INTEGER,
      "a whole number from 1",
      part
    )
    const size = yield* wholeNumber(
      sizeAsked,
      "page_size",
      1,
      maxPageSize,
      `UMO lists at most ${maxPageSize} memories a page: a whole number from 1 to ${maxPageSize}`,
      part
    )
    const filters = yield* Effect.fromResult(selectionOf(body))
    const memory = yield* Memory
    const listed = yield* memory.list({
      limit: size,
      offset: (number - 1) * size,
      include_superseded: yield* includeSuperseded(body),
      ...(filters === undefined ? {} : { filters })
    })
    // Read whole, a few at a time; one deleted meanwhile is left out.
    const records = yield* Effect.forEach(
      listed.items,
      (item) =>
        memory.get(item.umo_id).pipe(
          Effect.map((record) => [fromRecord(record)]),
          Effect.catchIf(
            (error) => error instanceof MemoryNotFound,
            () => Effect.succeed([])
          )
        ),
      { concurrency: 8 }
    )
    return {
      count: listed.total_count,
      next: listed.has_more ? pageLink(request.url, number + 1, size) : null,
      previous: number > 1 ? pageLink(request.url, number - 1, size) : null,
      results: records.flat()
    }
  })

export const getAll: Mem0Call = (request) =>
  Effect.andThen(Effect.fromResult(checkFields(request.body, listFields)), page(request, request.body))

/** The query string as an object: each parameter's last value. */
export const queryObject = (query: URLSearchParams): Record<string, string> => Object.fromEntries(query)

/** The legacy `GET /v1/memories/?user_id=…`: get all, its selection in the query string. */
export const getAllByQuery: Mem0Call = (request) =>
  Effect.gen(function* () {
    const fields = queryObject(request.query)
    yield* Effect.fromResult(
      checkFields(fields, {
        ...clientDefaults,
        app_id: refused("UMO's scopes are user_id, agent_id and run_id"),
        user_id: "use",
        agent_id: "use",
        run_id: "use",
        page: "use",
        page_size: "use"
      })
    )
    return yield* page(request, fields, "query string")
  })

/** `delete_all`: every memory of the scope the query string names, superseded ones too, erased. */
export const deleteAll: Mem0Call = (request) =>
  Effect.gen(function* () {
    const fields: Record<string, unknown> = queryObject(request.query)
    yield* Effect.fromResult(
      checkFields(fields, {
        ...clientDefaults,
        app_id: refused("UMO's scopes are user_id, agent_id and run_id"),
        user_id: "use",
        agent_id: "use",
        run_id: "use",
        filters: "use"
      })
    )
    if (fields["filters"] !== undefined) {
      // Python's client sends a dict here as its `str()`: `{'user_id': 'alice'}`.
      const filters = readStructured(String(fields["filters"]))
      if (filters === undefined)
        return yield* invalid(
          "filters",
          "must be an object naming user_id, agent_id or run_id",
          "query string"
        )
      fields["filters"] = filters
    }
    const scope = yield* Effect.fromResult(scopeOf(fields))
    if (scope.user_id === undefined && scope.agent_id === undefined && scope.run_id === undefined)
      return yield* new Mem0Refused({
        status: 422,
        detail:
          "invalid query string: name whose memories to delete: user_id, agent_id or run_id (UMO never deletes a whole account at once)"
      })
    // Mem0 reads "*" as every user (agent, run): a whole account, which UMO never deletes at once.
    const everyone = (["user_id", "agent_id", "run_id"] as const).find((field) => scope[field] === "*")
    if (everyone !== undefined)
      return yield* invalid(
        everyone,
        '"*" (every one) is not supported: UMO never deletes a whole account at once; name whose memories to delete',
        "query string"
      )
    const memory = yield* Memory
    const erased = yield* memory.erase({
      ...(scope.user_id === undefined ? {} : { user_id: scope.user_id as string }),
      ...(scope.agent_id === undefined ? {} : { agent_id: scope.agent_id as string }),
      ...(scope.run_id === undefined ? {} : { session_id: scope.run_id as string })
    })
    return {
      message: "Memories deleted successfully!",
      deleted: erased.forgotten,
      umo_ids: erased.umo_ids,
      receipt: erased.receipt
    }
  })
