import { it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient } from "effect/http"
import { describe, expect } from "vitest"
import { clientFor, TestServer } from "../support/TestServer.js"

describe("system", () => {
  it.layer(TestServer(), { timeout: "120 seconds" })((it) => {
    it.effect("GET /health answers healthy, without a key, with the search index against its budget", () =>
      Effect.gen(function* () {
        const client = yield* clientFor()
        const health = yield* client.system.health()
        expect(health.status).toBe("healthy")
        // The default budget (UMO_INDEX_MEMORY_MB unset), no shard, nothing dropped.
        expect(health.index).toMatchObject({ budget_mb: 1024, evictions: 0, shard: null })
        expect(health.index.held_mb).toBeLessThanOrEqual(health.index.budget_mb)
      })
    )

    it.effect("serves the OpenAPI document and the docs page", () =>
      Effect.gen(function* () {
        const http = yield* HttpClient.HttpClient
        const spec = yield* Effect.flatMap(http.get("/openapi.json"), (r) => r.json)
        expect(spec).toMatchObject({ openapi: "3.1.0" })
        const paths = Object.keys((spec as { paths: Record<string, unknown> }).paths)
        expect(paths).toEqual(
          expect.arrayContaining(["/health", "/v1/process", "/v1/memories", "/v1/memories/{id}"])
        )
        const docs = yield* http.get("/docs")
        expect(docs.status).toBe(200)
        expect(docs.headers["content-type"]).toContain("text/html")
      })
    )

    it.effect("answers an unknown route with 404 {detail} and a request id", () =>
      Effect.gen(function* () {
        const http = yield* HttpClient.HttpClient
        const response = yield* http.get("/v1/nothing-here")
        expect(response.status).toBe(404)
        expect(yield* response.json).toEqual({ detail: expect.any(String) })
        expect(response.headers["x-request-id"]).toMatch(/^req_/)
        expect(response.headers["server-timing"]).toMatch(/^app;dur=\d+(\.\d)?$/)
      })
    )
  })
})
