/**
 * `GET /`: where a newcomer lands. A browser (it asks for HTML) is sent on to the console; anything
 * else — curl, a client library, a script — gets a small JSON map of where things are.
 * @module
 */
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"

/** What `GET /` tells an API client: each path is served by this server. */
export const directory = {
  name: "UMO",
  api: "/v1",
  openapi: "/openapi.json",
  docs: "/docs",
  console: "/console",
  health: "/health",
  mcp: "/mcp",
  signing_keys: "/.well-known/jwks.json"
} as const

/** Whether the request prefers a page: browsers put `text/html` in `Accept`, API clients do not. */
export const wantsPage = (accept: string | undefined) =>
  accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept)

const answer = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    wantsPage(request.headers["accept"])
      ? HttpServerResponse.redirect("/console", { status: 302 })
      : HttpServerResponse.jsonUnsafe(directory)
  )

/** The route `GET /`. */
export const FrontDoor = HttpRouter.add("GET", "/", answer)
