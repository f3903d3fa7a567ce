import { it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { clientFor, embedderCalls, keys, rawCall, TestServer } from "../support/TestServer.js"

const notes = [
  "Melanie painted a lake at sunrise last summer with her kids.",
  "The committee approved the budget of $2 million on Tuesday.",
  "Caroline went to the LGBTQ support group yesterday and felt accepted.",
  "Jane Austen wrote Pride and Prejudice in 1813.",
  "Tesla recalled 2 million cars in December 2023 after a software fault."
]

describe("batch and search", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect(
      "POST /v1/batch captures valid items in order, reports invalid ones, and embeds in one call",
      () =>
        Effect.gen(function* () {
          const alice = yield* clientFor(keys.alice)
          // The process's first capture also embeds the slot sense's example sentences, once
          // (memory/src/capture/Updates.ts): counted from the second, a batch is one call.
          yield* alice.memories.process({ headers: {}, payload: { content: "Warming up." } })
          const before = embedderCalls.count
          const items: Array<unknown> = [
            ...notes.map((content, i) => ({ content, source: i % 2 === 0 ? "diary" : "news" })),
            { content: "" },
            { content: 7 },
            { content: "A fine note with a bad time.", timestamp: "not a time" },
            42
          ]
          const { data } = yield* alice.memories.batch({ headers: {}, payload: { items } })
          expect(embedderCalls.count - before).toBe(1)
          expect(data.results.map((r) => r.index)).toEqual(items.map((_, i) => i))
          expect(data.results.slice(0, 5).every((r) => r.success && r.umo_id !== null && r.receipt)).toBe(
            true
          )
          for (const failed of data.results.slice(5)) {
            expect(failed).toMatchObject({
              success: false,
              umo_id: null,
              error: { status: 422, detail: expect.any(String) }
            })
          }
          const listed = yield* alice.memories.list({ query: { limit: 100 } })
          for (const r of data.results.slice(0, 5))
            expect(listed.data.items.map((m) => m.umo_id)).toContain(r.umo_id)
        })
    )

    it.effect("refuses a batch naming a field a capture does not take, whole, and stores none of it", () =>
      Effect.gen(function* () {
        const bob = yield* clientFor(keys.bob)
        const before = (yield* bob.memories.list({ query: { limit: 100 } })).data.total_count
        const items = [
          { content: "I live in Nice", user_id: "dave" },
          { content: "I live in Nice", userid: "dave" }
        ]
        expect(yield* rawCall(keys.bob, "POST", "/v1/batch", { items })).toEqual({
          status: 422,
          body: {
            detail: expect.stringMatching(
              /^invalid request body: items\.1\.userid: Expected no excess property .*nothing was stored$/
            )
          }
        })
        expect((yield* bob.memories.list({ query: { limit: 100 } })).data.total_count).toBe(before)
      })
    )

    it.effect("refuses an empty, missing or oversized items list with 422", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const many = Array.from({ length: 101 }, () => ({ content: "x" }))
        for (const items of [[], many]) {
          expect(yield* rawCall(keys.alice, "POST", "/v1/batch", { items })).toEqual({
            status: 422,
            body: { detail: "invalid request body: items: Expected a value with a length between 1 and 100" }
          })
        }
        const hundred = yield* alice.memories.batch({ headers: {}, payload: { items: many.slice(0, 100) } })
        expect(hundred.data.results).toHaveLength(100)
      })
    )

    it.effect("POST /v1/memories/query and /v1/search find the caller's memories only, with limits", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const bob = yield* clientFor(keys.bob)
        const found = yield* alice.memories.query({ payload: { query: "who wrote Pride and Prejudice?" } })
        expect(found.data.results[0]?.content_text).toBe(notes[3])
        expect(found.data.results.length).toBeLessThanOrEqual(5)
        expect(found.data.has_more).toBe(found.data.total_count > found.data.results.length)
        const alias = yield* alice.memories.search({ payload: { query: "car recall", limit: 1 } })
        expect(alias.data.results).toHaveLength(1)
        expect(alias.data.results[0]!.content_text).toBe(notes[4])
        const diary = yield* alice.memories.search({
          payload: { query: "budget", source: "news", limit: 50 }
        })
        expect(diary.data.results.every((r) => notes.indexOf(r.content_text) % 2 === 1)).toBe(true)
        expect(
          (yield* bob.memories.search({ payload: { query: "Pride and Prejudice" } })).data.results
        ).toEqual([])
        // Server-Timing names the search's stages after the whole request.
        const raw = yield* (yield* HttpClient.HttpClient).execute(
          HttpClientRequest.post("/v1/memories/query").pipe(
            HttpClientRequest.bearerToken(keys.alice),
            HttpClientRequest.bodyJsonUnsafe({ query: "Pride and Prejudice" })
          )
        )
        expect(raw.status).toBe(200)
        const metrics = raw.headers["server-timing"]!.split(", ")
        for (const metric of metrics) expect(metric).toMatch(/^[a-z]+;dur=\d+(\.\d)?(;desc=[a-z]+)?$/)
        const names = metrics.map((m) => m.split(";")[0])
        expect(names[0]).toBe("app")
        // `read` only when a returned memory was not read lately (this small account's were, just above).
        expect(
          names
            .slice(1)
            .filter((name) => name !== "read")
            .sort()
        ).toEqual(["auth", "context", "embed", "entities", "links", "rescore", "sync", "text", "vector"])
        // A small account is loaded into the in-process index by its first search, which serves it.
        expect(metrics.find((m) => m.startsWith("sync;"))).toMatch(/;desc=index$/)
        for (const [payload, rule] of [
          [{ query: "x", limit: 51 }, "limit: Expected a value between 1 and 50"],
          [{ query: "x", limit: 0 }, "limit: Expected a value between 1 and 50"],
          [{ query: "  " }, "query: must contain a visible character"],
          [{ query: "x".repeat(2_001) }, "query: must be at most 2,000 characters"],
          [{ query: "x", limti: 3 }, "limti"]
        ] as const) {
          const refused = yield* rawCall(keys.alice, "POST", "/v1/memories/query", payload)
          expect(refused.status).toBe(422)
          expect(refused.body.detail).toContain(rule)
        }
      })
    )
  })
})
