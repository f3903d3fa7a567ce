import { it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient } from "effect/http"
import { describe, expect } from "vitest"
import { clientFor, keys, rawCall, TestServer } from "../support/TestServer.js"

describe("ask", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("answers from the caller's memories with [n] markers, citations and the question type", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        yield* alice.memories.batch({
          headers: {},
          payload: {
            items: [
              { content: "Marie Curie was born in Warsaw and later worked in Paris." },
              {
                content: "I went to the LGBTQ support group yesterday and it was powerful.",
                timestamp: "2023-05-08T13:56:00Z"
              },
              { content: "The quarterly budget was approved at $2 million." }
            ]
          }
        })
        const where = (yield* alice.ask.ask({ payload: { question: "Where was Marie Curie born?" } })).data
        expect(where).toMatchObject({
          method: "extractive",
          question_type: "location",
          model: "umo-extractive"
        })
        expect(where.answer).toContain("Warsaw")
        expect(where.answer).toMatch(/\[\d+\]/)
        const marker = Number(where.answer.match(/\[(\d+)\]/)![1])
        expect(where.citations.map((c) => c.index)).toContain(marker)
        expect(where.citations[0]).toMatchObject({
          umo_id: expect.any(String),
          snippet: expect.stringContaining("Warsaw")
        })
        expect(where.confidence).toBeGreaterThan(0)

        const when = (yield* alice.ask.ask({
          payload: { question: "When did I go to the support group?", context_size: 3 }
        })).data
        expect(when.question_type).toBe("temporal")
        expect(when.answer).toMatch(/^7 May 2023 \[\d\]$/)
      })
    )

    it.effect(
      "answers with a local language model, cites only retrieved memories, and refuses one not installed",
      () =>
        Effect.gen(function* () {
          const alice = yield* clientFor(keys.alice)
          const { data } = yield* alice.ask.models()
          const smallest = data.local.find((m) => m.id === "smollm2-135m-instruct")!
          expect(smallest).toMatchObject({ method: "generative", available: true })
          const answered = (yield* alice.ask.ask({
            payload: { question: "Where was Marie Curie born?", model: smallest.id, context_size: 3 }
          })).data
          expect(answered).toMatchObject({ method: "generative", model: smallest.id })
          const ids = new Set(answered.citations.map((c) => c.index))
          for (const m of answered.answer.matchAll(/\[(\d+)\]/g)) expect(ids.has(Number(m[1]))).toBe(true)
          for (const c of answered.citations) expect(c.index).toBeLessThanOrEqual(3)

          for (const absent of data.local.filter((m) => !m.available)) {
            const refused = yield* rawCall(keys.alice, "POST", "/v1/ask", {
              question: "why?",
              model: absent.id
            })
            expect(refused.status).toBe(422)
            expect(refused.body.detail).toContain(`${absent.id} is not available on this server`)
          }
        })
    )

    it.effect("says so when nothing relevant is found, and never cites another account", () =>
      Effect.gen(function* () {
        const bob = yield* clientFor(keys.bob)
        const answer = (yield* bob.ask.ask({ payload: { question: "Where was Marie Curie born?" } })).data
        expect(answer).toMatchObject({ method: "no_context", citations: [], confidence: 0 })
      })
    )

    it.effect("refuses unknown models, empty questions and context sizes past 20 with 422", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        for (const [payload, rule] of [
          [
            { question: "why?", model: "acme:oracle" },
            "model: must be one of umo-extractive, qwen2.5-coder-0.5b-instruct, qwen2.5-coder-1.5b-instruct, smollm2-135m-instruct, openai:gpt-4o-mini, openai:gpt-4o, anthropic:claude-3-5-haiku-latest (GET /v1/ask/models)"
          ],
          [{ question: "  " }, "question: must contain a visible character"],
          [{ question: "why?", context_size: 21 }, "context_size: Expected a value between 1 and 20"],
          [{ question: "why?", context_size: 0 }, "context_size: Expected a value between 1 and 20"],
          [
            { question: "why?", model: "openai:gpt-4o-mini" },
            "provider_key: is required for openai:gpt-4o-mini: a cloud model runs with your own provider key"
          ]
        ] as const) {
          const refused = yield* rawCall(keys.alice, "POST", "/v1/ask", payload)
          expect(refused.status, JSON.stringify(payload)).toBe(422)
          expect(refused.body.detail, JSON.stringify(payload)).toContain(`invalid request body: ${rule}`)
        }
        expect((yield* alice.ask.ask({ payload: { question: "why?", context_size: 20 } })).status).toBe(
          "success"
        )
      })
    )

    it.effect("GET /v1/ask/models names the default local model", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const { data } = yield* alice.ask.models()
        expect(data.local).toContainEqual({
          id: "umo-extractive",
          method: "extractive",
          available: true,
          default: true
        })
        expect(data.local.filter((m) => m.method === "generative").map((m) => m.id)).toEqual([
          "qwen2.5-coder-0.5b-instruct",
          "qwen2.5-coder-1.5b-instruct",
          "smollm2-135m-instruct"
        ])
        for (const m of data.local) expect(m.available === false, m.id).toBe(m.detail !== undefined)
        expect(data.cloud.every((m) => m.method === "generative" && m.requires_key)).toBe(true)
        // The served document names the same models, and asks a key for the cloud ones.
        const http = yield* HttpClient.HttpClient
        // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, read field by field
        const document = (yield* (yield* http.get("/openapi.json")).json) as any
        const body = document.paths["/v1/ask"]!.post.requestBody.content["application/json"]!.schema
        const named = body["properties"].model.anyOf.find(
          (branch: { type: string }) => branch.type === "string"
        )
        expect(named.enum).toEqual([...data.local.filter((m) => m.available), ...data.cloud].map((m) => m.id))
        expect(body["if"].properties.model.enum).toEqual(data.cloud.map((m) => m.id))
        expect(body["then"].required).toEqual(["provider_key"])
      })
    )
  })
})
