/**
 * The web console at `/console`: the static files `npm run build` writes to `console/dist`, served
 * as they are. The console is a single-page app, so a path of its own (`/console/memories/…`)
 * answers `index.html`; only a path naming a file (one with an extension) can be missing (404).
 * @module
 */
import { readFile, stat } from "node:fs/promises"
import { extname, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"

/** `console/dist`, found from this module in `server/src/http/` and in `server/dist/http/` alike. */
export const defaultConsoleDir = fileURLToPath(new URL("../../../console/dist", import.meta.url))

/**
 * Only the server's own origin: the console has no inline script or style, loads no font or CDN,
 * and talks to no API but this one, so nothing injected into a page can load or send anything.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json"
}

// Vite puts every content-hashed file, and only those, under `assets/`: a new build gives new names,
// so these can be cached for good while `index.html`, which names them, is revalidated every time.
const immutable = "public, max-age=31536000, immutable"
const revalidate = "no-cache"

const problem = (status: number, detail: string) =>
  HttpServerResponse.jsonUnsafe({ detail }, { status, headers: securityHeaders })

/**
 * The file path a request names, relative to the console's directory, or undefined when it tries
 * to leave it (`..`, an encoded `/` or `\`, NUL) or to reach a hidden file.
 */
export const consolePath = (url: string): string | undefined => {
  const path = url.split(/[?#]/, 1)[0]!
  const rest = path === "/console" ? "" : path.slice("/console/".length)
  let decoded: string
  try {
    decoded = decodeURIComponent(rest)
  } catch {
    return undefined
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined
  const segments = decoded.split("/").filter((segment) => segment !== "")
  if (segments.some((segment) => segment.startsWith("."))) return undefined
  return segments.join("/")
}

const isFile = (path: string) =>
  Effect.promise(() =>
    stat(path).then(
      (s) => s.isFile(),
      () => false
    )
  )

const fileResponse = (path: string, cacheControl: string) =>
  Effect.map(
    Effect.promise(() => readFile(path)),
    (bytes) =>
      HttpServerResponse.uint8Array(new Uint8Array(bytes), {
        contentType: contentTypes[extname(path).toLowerCase()] ?? "application/octet-stream",
        headers: { ...securityHeaders, "cache-control": cacheControl }
      })
  )

/** Answers one request under `/console` from the built files in `dir`. */
const serve = (dir: string) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const index = resolve(dir, "index.html")
    if (!(yield* isFile(index)))
      return problem(
        503,
        "the web console is not built: run `npm run build` in the repository (it writes console/dist)"
      )
    const relative = consolePath(request.url)
    if (relative === undefined) return problem(400, "that path is not a file of the web console")
    const last = relative.split("/").at(-1) ?? ""
    // A path without an extension is one of the app's own pages: the app routes it in the browser.
    if (!last.includes(".")) return yield* fileResponse(index, revalidate)
    const file = resolve(dir, relative)
    // Defence in depth: `consolePath` already refused every way out of the directory.
    if (!file.startsWith(dir + sep)) return problem(400, "that path is not a file of the web console")
    if (!(yield* isFile(file))) return problem(404, `the web console has no file ${relative}`)
    return yield* fileResponse(file, relative.startsWith("assets/") ? immutable : revalidate)
  })

/**
 * The routes `GET /console` and `GET /console/*` over the built console in `dir` (default
 * `console/dist`). When the build is missing they answer 503 with what to run.
 */
export const layer = (options: { readonly dir?: string } = {}) => {
  const handler = serve(resolve(options.dir ?? defaultConsoleDir))
  // The router's `/console/*` also matches `/console` itself.
  return HttpRouter.add("GET", "/console/*", handler)
}

/** The console's routes over `console/dist`. */
export const ConsoleFiles = layer()
