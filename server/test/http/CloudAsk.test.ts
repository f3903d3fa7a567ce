import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { clientFor, keys, TestServer } from "../support/TestServer.js"

// A local stand-in for the providers' HTTP APIs, speaking their wire formats: OpenAI chat
// completions and Anthropic messages. It checks the auth headers and records what it was sent.
const seen: Array<{ path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> }> = []
const stub = createServer((request, response) => {
  let raw = ""
  request.on("data", (chunk) => (raw += chunk))
  request.on("end", () => {
    const body = JSON.parse(raw || "{}") as Record<string, unknown>
    seen.push({ path: request.url ?? "", headers: request.headers, body })
    const reply = (status: number, json: unknown) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(JSON.stringify(json))
    }
    if (request.url === "/v1/chat/completions") {
      if (request.headers.authorization !== "Bearer sk-good") {
        return reply(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
      }
      return reply(200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "Marie Curie was born in Warsaw [1], not Vienna [7]." },
            finish_reason: "stop"
          }
        ]
      })
    }
    if (request.url === "/v1/messages") {
      if (request.headers["x-api-key"] !== "sk-ant-good" || !request.headers["anthropic-version"]) {
        return reply(401, {
          type: "error",
          error: { type: "authentication_error", message: "invalid x-api-key" }
        })
      }
      return reply(200, {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [{ type: "text", text: "She was born in Warsaw [1]." }],
        stop_reason: "end_turn"
      })
    }
    reply(404, { error: { message: "no such route" } })
  })
})

beforeAll(async () => {
  await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`
  process.env["OPENAI_BASE_URL"] = url
  process.env["ANTHROPIC_BASE_URL"] = url
})
afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())))

describe("ask with cloud models", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("answers through OpenAI and Anthropic with the caller's key, keeping only real citations", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        yield* alice.memories.process({
          payload: { content: "Marie Curie was born in Warsaw and worked in Paris." }
        })
        const models = (yield* alice.ask.models()).data.cloud
        expect(models.map((m) => m.id)).toEqual([
          "openai:gpt-4o-mini",
          "openai:gpt-4o",
          "anthropic:claude-3-5-haiku-latest"
        ])

        const openai = (yield* alice.ask.ask({
          payload: {
            question: "Where was Marie Curie born?",
            model: "openai:gpt-4o-mini",
            provider_key: "sk-good"
          }
        })).data
        expect(openai).toMatchObject({
          method: "generative",
          question_type: "location",
          model: "openai:gpt-4o-mini"
        })
        expect(openai.answer).toBe("Marie Curie was born in Warsaw [1], not Vienna .")
        expect(openai.citations.map((c) => c.index)).toEqual([1])
        const sent = seen.find((s) => s.path === "/v1/chat/completions")!
        expect(sent.body).toMatchObject({ model: "gpt-4o-mini" })
        expect(JSON.stringify(sent.body["messages"])).toContain("[1]")
        expect(JSON.stringify(sent.body["messages"])).toContain("Where was Marie Curie born?")

        const anthropic = (yield* alice.ask.ask({
          payload: {
            question: "Where was she born?",
            model: "anthropic:claude-3-5-haiku-latest",
            provider_key: "sk-ant-good"
          }
        })).data
        expect(anthropic).toMatchObject({ method: "generative", answer: "She was born in Warsaw [1]." })
        expect(seen.find((s) => s.path === "/v1/messages")!.headers["anthropic-version"]).toBe("2023-06-01")
      })
    )

    it.effect("answers 422 without provider_key and 502 when the provider refuses", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        expect(
          yield* Effect.flip(alice.ask.ask({ payload: { question: "Where?", model: "openai:gpt-4o" } }))
        ).toMatchObject({ detail: expect.stringContaining("provider_key") })
        const refused = yield* Effect.flip(
          alice.ask.ask({ payload: { question: "Where?", model: "openai:gpt-4o", provider_key: "sk-bad" } })
        )
        expect(refused).toMatchObject({ detail: expect.stringContaining("401") })
        expect(JSON.stringify(refused)).not.toContain("sk-bad")
      })
    )
  })
})
