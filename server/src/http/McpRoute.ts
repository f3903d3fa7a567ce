import { handleMcpRequest } from "@umo/mcp"
import { type Memory, MemoryAccount, Unavailable } from "@umo/memory"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Unauthorized } from "../api/Errors.js"
import { resolveBearerKey } from "./Authentication.js"

const problem = (status: number, detail: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe({ detail }, { status, headers })

const bearerOf = (request: HttpServerRequest.HttpServerRequest) =>
  /^Bearer\s+(.*)$/i.exec(request.headers["authorization"] ?? "")?.[1] ?? ""

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, for the account of the request's
 * bearer key (the same keys as the API; the request middleware applies the same rate limits).
 * Each request is answered on its own, as JSON (the transport's stateless mode): no session to
 * keep, so any replica can answer. The server opens no event stream of its own, so `GET` and
 * `DELETE` (a stream, a session's end) are 405.
 */
export const McpRoute = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const resolve = yield* resolveBearerKey
    const services = yield* Effect.context<Memory>()
    const post = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const found = yield* resolve(bearerOf(request))
        const web = yield* HttpServerRequest.toWeb(request)
        const response = yield* Effect.promise(() =>
          handleMcpRequest(web, (effect) =>
            Effect.runPromiseExit(
              effect.pipe(
                Effect.provideService(MemoryAccount, found.account),
                Effect.provideContext(services)
              )
            )
          )
        )
        return HttpServerResponse.fromWeb(response)
      }).pipe(
        Effect.catch((error) =>
          Effect.succeed(
            error instanceof Unauthorized
              ? problem(401, error.detail, { "www-authenticate": "Bearer" })
              : error instanceof Unavailable
                ? problem(503, error.detail)
                : problem(400, "the request could not be read")
          )
        )
      )
    const notAllowed = problem(405, "the MCP endpoint answers POST only (stateless Streamable HTTP)", {
      allow: "POST"
    })
    yield* router.add("POST", "/mcp", post)
    yield* router.add("GET", "/mcp", notAllowed)
    yield* router.add("DELETE", "/mcp", notAllowed)
  })
)
