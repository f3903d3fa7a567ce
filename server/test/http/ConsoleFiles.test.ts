import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient, HttpRouter, HttpServer } from "effect/http"
import { afterAll, describe, expect } from "vitest"
import * as ConsoleFiles from "../../src/http/ConsoleFiles.js"
import { createUmoServer } from "../../src/http/NodeHttp.js"
import * as RateLimiter from "../../src/http/RateLimiter.js"
import { requestMiddleware } from "../../src/http/RequestMiddleware.js"
import { TestServer } from "../support/TestServer.js"

// A stand-in build: the console's real build is not needed to test how it is served, and a secret
// beside the build directory is what a traversal would try to reach.
const root = mkdtempSync(join(tmpdir(), "umo-console-files-"))
const dist = join(root, "dist")
mkdirSync(join(dist, "assets"), { recursive: true })
writeFileSync(join(dist, "index.html"), "<!doctype html><title>console index</title>")
writeFileSync(join(dist, "assets", "index-Ab12Cd.js"), "console.log('app')")
writeFileSync(join(dist, "assets", "index-Ef34Gh.css"), "body{}")
writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>")
writeFileSync(join(root, "secret.txt"), "TOP-SECRET")
writeFileSync(join(dist, ".env"), "TOP-SECRET")
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The console's routes alone, with the server's request middleware, on an ephemeral port. */
const consoleServer = (dir: string) =>
  HttpRouter.serve(ConsoleFiles.layer({ dir }), { middleware: requestMiddleware, disableLogger: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => createUmoServer(), { port: 0 })),
    Layer.provide(RateLimiter.layer(100_000))
  )

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** A request with the path sent exactly as written: `fetch` and URL would resolve `..` before sending. */
const rawRequest = (path: string, method = "GET") =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const port = Number(new URL(HttpServer.formatAddress(server.address)).port)
    return yield* Effect.callback<Answer, Error>((resume) => {
      const req = request({ host: "127.0.0.1", port, path, method }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          body += chunk
        })
        res.on("end", () =>
          resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body }))
        )
      })
      req.on("error", (error) => resume(Effect.fail(error)))
      req.end()
    })
  })

describe("GET /console", () => {
  it.layer(consoleServer(dist), { timeout: "60 seconds" })((it) => {
    it.effect("serves index.html at /console with a strict CSP and no caching", () =>
      Effect.gen(function* () {
        for (const path of ["/console", "/console/"]) {
          const answer = yield* rawRequest(path)
          expect(answer.status).toBe(200)
          expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8")
          expect(answer.headers["cache-control"]).toBe("no-cache")
          expect(answer.body).toContain("console index")
          const csp = String(answer.headers["content-security-policy"])
          expect(csp).toBe(ConsoleFiles.contentSecurityPolicy)
          expect(csp).toContain("default-src 'self'")
          expect(csp).toContain("script-src 'self'")
          expect(csp).toContain("frame-ancestors 'none'")
          expect(csp).not.toContain("unsafe")
          expect(csp).not.toMatch(/https?:|\*/)
          expect(answer.headers["x-content-type-options"]).toBe("nosniff")
          expect(answer.headers["x-request-id"]).toMatch(/^req_/)
        }
      })
    )

    it.effect("answers index.html for the app's own paths (the browser routes them)", () =>
      Effect.gen(function* () {
        for (const path of [
          "/console/memories",
          "/console/memories/0190a1b2-c3d4",
          "/console/chain?before=3"
        ]) {
          const answer = yield* rawRequest(path)
          expect(answer.status, path).toBe(200)
          expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8")
          expect(answer.body).toContain("console index")
        }
      })
    )

    it.effect("serves assets with their content types; hashed ones are cached for good", () =>
      Effect.gen(function* () {
        const script = yield* rawRequest("/console/assets/index-Ab12Cd.js")
        expect(script.status).toBe(200)
        expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8")
        expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
        expect(script.body).toBe("console.log('app')")
        expect(script.headers["content-security-policy"]).toBe(ConsoleFiles.contentSecurityPolicy)
        const style = yield* rawRequest("/console/assets/index-Ef34Gh.css")
        expect(style.headers["content-type"]).toBe("text/css; charset=utf-8")
        const icon = yield* rawRequest("/console/favicon.svg")
        expect(icon.headers["content-type"]).toBe("image/svg+xml")
        expect(icon.headers["cache-control"]).toBe("no-cache")
      })
    )

    it.effect("answers other methods anywhere under /console with 405 and Allow", () =>
      Effect.gen(function* () {
        for (const [method, path] of [
          ["POST", "/console"],
          ["POST", "/console/memories"],
          ["PUT", "/console/assets/index-Ab12Cd.js"],
          ["DELETE", "/console/chain?before=3"]
        ] as const) {
          const answer = yield* rawRequest(path, method)
          expect(answer.status, `${method} ${path}`).toBe(405)
          expect(answer.headers.allow).toBe("GET, HEAD")
          expect(JSON.parse(answer.body)).toEqual({ detail: expect.stringContaining("GET") })
        }
      })
    )

    it.effect("answers a missing asset with 404 {detail}, not index.html", () =>
      Effect.gen(function* () {
        for (const path of ["/console/assets/index-Zz99.js", "/console/robots.txt"]) {
          const answer = yield* rawRequest(path)
          expect(answer.status, path).toBe(404)
          expect(answer.headers["content-type"]).toContain("application/json")
          expect(JSON.parse(answer.body)).toEqual({ detail: expect.stringContaining("no file") })
        }
      })
    )

    it.effect("refuses paths that leave the build directory or name hidden files", () =>
      Effect.gen(function* () {
        for (const path of [
          "/console/../secret.txt",
          "/console/assets/../../secret.txt",
          "/console/..%2fsecret.txt",
          "/console/%2e%2e/secret.txt",
          "/console/assets/..%2F..%2Fsecret.txt",
          "/console/..%5csecret.txt",
          "/console/%00.js",
          "/console/%E0%A4%A.js",
          "/console/.env"
        ]) {
          const answer = yield* rawRequest(path)
          expect(answer.status, path).toBeGreaterThanOrEqual(400)
          expect(answer.status, path).toBeLessThan(500)
          expect(answer.body, path).not.toContain("TOP-SECRET")
          expect(JSON.parse(answer.body), path).toEqual({ detail: expect.any(String) })
        }
      })
    )
  })

  it.layer(consoleServer(join(root, "not-built")), { timeout: "60 seconds" })((it) => {
    it.effect("answers 503 {detail} saying to build when the build is missing", () =>
      Effect.gen(function* () {
        for (const path of ["/console", "/console/memories", "/console/assets/index-Ab12Cd.js"]) {
          const answer = yield* rawRequest(path)
          expect(answer.status, path).toBe(503)
          expect(JSON.parse(answer.body)).toEqual({ detail: expect.stringContaining("npm run build") })
        }
      })
    )
  })

  it.effect("consolePath keeps paths inside the console and refuses the rest", () =>
    Effect.sync(() => {
      expect(ConsoleFiles.consolePath("/console")).toBe("")
      expect(ConsoleFiles.consolePath("/console/assets/a-1.js?v=2")).toBe("assets/a-1.js")
      expect(ConsoleFiles.consolePath("/console/a/../b")).toBeUndefined()
      expect(ConsoleFiles.consolePath("/console/a%2F..%2F..%2Fb")).toBeUndefined()
      expect(ConsoleFiles.consolePath("/console/%ZZ")).toBeUndefined()
    })
  )

  it.layer(TestServer(), { timeout: "120 seconds" })((it) => {
    it.effect("is part of the server's App, beside the API", () =>
      Effect.gen(function* () {
        const http = yield* HttpClient.HttpClient
        const response = yield* http.get("/console")
        // 200 once `npm run build` has built the console, 503 with what to run before.
        expect([200, 503]).toContain(response.status)
        expect(response.headers["content-security-policy"]).toBe(ConsoleFiles.contentSecurityPolicy)
        expect((yield* http.get("/health")).status).toBe(200)
      })
    )
  })
})
