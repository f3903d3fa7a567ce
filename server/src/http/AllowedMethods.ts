import { OpenApi } from "effect/http-api"
import { UmoApi } from "../api/UmoApi.js"

/**
 * The routes served beside the API's own: the front door, its document, its documentation page,
 * MCP, the console (`/**`: any path below, as the console's files and the app's own paths are).
 */
const servedBeside: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["/", ["GET"]],
  ["/openapi.json", ["GET"]],
  ["/docs", ["GET"]],
  ["/mcp", ["POST"]],
  ["/console", ["GET"]],
  ["/console/**", ["GET"]]
]

const routes = [
  ...Object.entries(OpenApi.fromApi(UmoApi).paths).map(
    ([path, item]) => [path, Object.keys(item).map((method) => method.toUpperCase())] as const
  ),
  ...servedBeside
].map(([path, methods]) => ({
  // `{id}` matches one path segment, as the router's `:id` does.
  pattern: new RegExp(
    `^${path
      .replace(/[.]/g, "\\.")
      .replace(/\{[^}]+\}/g, "[^/]+")
      .replace(/\/\*\*$/, "/.+")}/?$`
  ),
  literal: !path.includes("{") && !path.endsWith("/**"),
  // The platform answers HEAD wherever it answers GET.
  methods: methods.includes("GET") ? [...methods, "HEAD"] : [...methods]
}))

/**
 * The methods a path answers, for a `405 Method Not Allowed` and its `Allow` header: empty when no
 * route has that path (a 404).
 */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const matching = routes.filter((route) => route.pattern.test(path))
  // A path the document lists as it is (`/v1/memories/query`) is that resource, not an `{id}`.
  const exact = matching.some((route) => route.literal) ? matching.filter((route) => route.literal) : matching
  return [...new Set(exact.flatMap((route) => route.methods))]
}
