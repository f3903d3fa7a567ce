import { it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { directory, wantsPage } from "../../src/http/FrontDoor.js"
import { TestServer } from "../support/TestServer.js"

const get = (path: string, accept?: string, method: "GET" | "POST" = "GET") =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path)
    if (accept !== undefined) request = HttpClientRequest.setHeader(request, "accept", accept)
    // Fetch follows redirects unless told not to: the redirect itself is what is tested.
    const response = yield* Effect.provideService(http.execute(request), FetchHttpClient.RequestInit, {
      redirect: "manual"
    })
    return { status: response.status, headers: response.headers, text: yield* response.text }
  })

describe("the front door, GET /", () => {
  it("tells a page request from an API client's", () => {
    expect(wantsPage("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe(true)
    expect(wantsPage("application/json, text/html;q=0.5")).toBe(true)
    expect(wantsPage("application/json")).toBe(false)
    expect(wantsPage("*/*")).toBe(false)
    expect(wantsPage("text/htmlx")).toBe(false)
    expect(wantsPage(undefined)).toBe(false)
  })

  it.layer(TestServer(), { timeout: "60 seconds" })((it) => {
    it.effect("sends a browser on to the console", () =>
      Effect.gen(function* () {
        const answer = yield* get("/", "text/html,application/xhtml+xml,*/*;q=0.8")
        expect(answer.status).toBe(302)
        expect(answer.headers["location"]).toBe("/console")
      })
    )

    it.effect("tells an API client where the API, its document and its docs are, each served", () =>
      Effect.gen(function* () {
        for (const accept of [undefined, "application/json", "*/*"]) {
          const answer = yield* get("/", accept)
          expect(answer.status).toBe(200)
          expect(answer.headers["content-type"]).toMatch(/application\/json/)
          expect(JSON.parse(answer.text)).toEqual(directory)
        }
        expect((yield* get(directory.openapi)).status).toBe(200)
        expect((yield* get(directory.docs)).status).toBe(200)
        expect((yield* get(directory.health)).status).toBe(200)
        expect((yield* get(directory.signing_keys)).status).toBe(200)
      })
    )

    it.effect("answers other methods with 405 and Allow", () =>
      Effect.gen(function* () {
        const answer = yield* get("/", undefined, "POST")
        expect(answer.status).toBe(405)
        expect(answer.headers["allow"]).toContain("GET")
      })
    )
  })
})
