/**
 * `/mem0/…`: a Mem0-compatible API, so Mem0's own `MemoryClient` (Python `mem0ai`, npm `mem0ai`)
 * works unchanged with `host="http://<server>/mem0"` and a UMO key (docs/mem0.md). Each request is
 * authenticated with the API's own key check (`Authorization: Token <key>`, as Mem0's clients send
 * it, or `Bearer`), then becomes calls of the Memory service for the key's account; this face
 * holds no business logic. Every answer is JSON, snake_case; every error a `{detail}`.
 *
 * Paths are matched here, under one route, because the clients vary them: every path ends in `/`
 * but the JS client joins a host ending in `/` into `//`, and both are accepted.
 * @module
 */
import { isMemoryError, type Memory, MemoryAccount, type MemoryError, statusOf } from "@umo/memory"
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { Unauthorized } from "../api/Errors.js"
import { resolveBearerKey } from "../http/Authentication.js"
import { add } from "./Mem0Add.js"
import { batchDelete, batchUpdate } from "./Mem0Batch.js"
import { Mem0Refused } from "./Mem0Fields.js"
import { deleteAll, getAll, getAllByQuery, search } from "./Mem0Memories.js"
import { deleteEntity, get, history, ping, remove, update, users } from "./Mem0Records.js"
import type { Mem0Call } from "./Mem0Request.js"
import { createWebhook, deleteWebhook, listWebhooks } from "./Mem0Webhooks.js"

/** Where the Mem0 API is served. */
export const mem0Prefix = "/mem0"

type Method = "GET" | "POST" | "PUT" | "DELETE"

/** `:name` matches one path segment; the trailing `/` is optional. */
const pathPattern = (path: string) => new RegExp(`^${path.replace(/:[a-z]+/g, "([^/]+)")}/?$`)

const route = (method: Method, path: string, call: Mem0Call) => ({ method, pattern: pathPattern(path), call })

/** Every call the clients make that UMO answers; the legacy clients' paths beside the current ones. */
const routes = [
  route("GET", "/v1/ping", ping),
  route("PUT", "/v1/batch", batchUpdate),
  route("POST", "/api/v1/webhooks/projects/:project", createWebhook),
  route("GET", "/api/v1/webhooks/projects/:project", listWebhooks),
  route("DELETE", "/api/v1/webhooks/:id", deleteWebhook),
  route("DELETE", "/v1/batch", batchDelete),
  route("POST", "/v3/memories/add", add),
  route("POST", "/v1/memories", add),
  route("POST", "/v3/memories/search", search),
  route("POST", "/v2/memories/search", search),
  route("POST", "/v1/memories/search", search),
  route("POST", "/v3/memories", getAll),
  route("POST", "/v2/memories", getAll),
  route("GET", "/v1/memories", getAllByQuery),
  route("DELETE", "/v1/memories", deleteAll),
  route("GET", "/v1/memories/:id/history", history),
  route("GET", "/v1/memories/:id", get),
  route("PUT", "/v1/memories/:id", update),
  route("DELETE", "/v1/memories/:id", remove),
  route("GET", "/v1/entities", users),
  route("DELETE", "/v2/entities/:type/:name", deleteEntity),
  route("DELETE", "/v1/entities/:type/:name", deleteEntity)
]

/** Mem0 endpoints whose feature UMO does not have: 501, naming it, rather than a 404 that reads as a typo. */
const notOffered: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/v1\/feedback\/?$/, "feedback (/v1/feedback/)"],
  [/^\/v1\/exports(\/.*)?$/, "memory exports (/v1/exports/); UMO's own GET /v1/export exports an account"],
  [/^\/v1\/summary\/?$/, "summaries (/v1/summary/)"],
  [/^\/v2\/entities\/[^/]+\/[^/]+\/profile\/?$/, "profiles (/v2/entities/…/profile/)"],
  [/^\/v2\/profiles(\/.*)?$/, "profiles (/v2/profiles/)"],
  [/^\/api\/v1\/orgs(\/.*)?$/, "organizations and projects (/api/v1/orgs/)"],
  [/^\/v1\/event(\/.*)?$/, "events (/v1/event/): UMO's add answers once the memories are stored"]
]

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers })

const problem = (status: number, detail: string, headers: Record<string, string> = {}) =>
  answer(status, { detail }, headers)

/** The key of `Authorization: Token <key>` (Mem0's scheme) or `Bearer <key>` (UMO's). */
const keyOf = (request: HttpServerRequest.HttpServerRequest) =>
  /^(?:Token|Bearer)\s+(.*)$/i.exec(request.headers["authorization"] ?? "")?.[1] ?? ""

/** UMO names a run a session: a detail names it as Mem0's callers do. */
const inMem0Words = (detail: string) => detail.replace(/\bsession_id\b/g, "run_id")

const asProblem = (error: Mem0Refused | MemoryError | Unauthorized) =>
  error instanceof Mem0Refused
    ? problem(error.status, error.detail)
    : error instanceof Unauthorized
      ? problem(401, error.detail, { "www-authenticate": "Token" })
      : problem(statusOf(error), inMem0Words(error.detail))

const notJson = new Mem0Refused({ status: 422, detail: "invalid request body: must be a JSON object" })

/** The body of a POST or PUT: a JSON object, `{}` when empty. */
const bodyOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const text = yield* request.text.pipe(
      Effect.mapError(() => new Mem0Refused({ status: 400, detail: "the request body could not be read" }))
    )
    if (text.trim().length === 0) return {}
    const parsed = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => notJson })
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return yield* notJson
    return parsed as Record<string, unknown>
  })

/** The URL this path answers at, for a page's `next` and `previous`. */
const absoluteUrl = (request: HttpServerRequest.HttpServerRequest, path: string) => {
  const scheme = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
  return `${scheme}://${request.headers["host"] ?? "localhost"}${mem0Prefix}${path}`
}

/** The route `/mem0/*`, every method. */
export const Mem0Route = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const resolve = yield* resolveBearerKey
    const services = yield* Effect.context<Memory>()
    const handle = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const { pathname, searchParams } = new URL(request.url, "http://localhost")
        const path = pathname.replace(/\/{2,}/g, "/").slice(mem0Prefix.length) || "/"
        const found = yield* resolve(keyOf(request))
        const matching = routes.filter((r) => r.pattern.test(path))
        if (matching.length === 0) {
          const missing = notOffered.find(([pattern]) => pattern.test(path))
          return missing === undefined
            ? problem(404, `no such endpoint in UMO's Mem0 API: ${request.method} ${path}`)
            : problem(501, `not supported by UMO's Mem0 API: ${missing[1]}`)
        }
        const chosen = matching.find((r) => r.method === request.method)
        if (chosen === undefined) {
          const allowed = [...new Set(matching.map((r) => r.method))].join(", ")
          return problem(405, `${request.method} is not allowed here; this path answers ${allowed}`, {
            allow: allowed
          })
        }
        const params = chosen.pattern.exec(path)!.slice(1)
        const decoded = yield* Effect.try({
          try: () => params.map(decodeURIComponent),
          catch: () => new Mem0Refused({ status: 404, detail: `no such path: ${path}` })
        })
        // A DELETE may carry a body too (batch delete's list).
        const body = yield* bodyOf(request)
        const result = yield* chosen
          .call({
            body,
            query: searchParams,
            params: decoded,
            account: found.account,
            url: absoluteUrl(request, path)
          })
          .pipe(Effect.provideService(MemoryAccount, found.account), Effect.provideContext(services))
        return answer(200, result)
      }).pipe(
        Effect.catch((error) =>
          Effect.succeed(
            error instanceof Mem0Refused || error instanceof Unauthorized || isMemoryError(error)
              ? asProblem(error)
              : problem(500, "internal error")
          )
        )
      )
    yield* router.add("*", `${mem0Prefix}/*`, handle)
  })
)
