/** The paths of search, the one call besides GET that only reads (`POST /v1/memories/query`, `POST /v1/search`). */
const searchPaths = new Set(["/v1/memories/query", "/v1/search"])

/**
 * Whether a call only reads, by its method and path (no query string): every GET, and search.
 * Such a call may start before its checks are done (its key looked up again, its rate-limit token
 * taken) and be dropped if one fails: it changed nothing. A call that writes waits for them.
 */
export const readsOnly = (method: string, path: string) =>
  method === "GET" || (method === "POST" && searchPaths.has(path))
