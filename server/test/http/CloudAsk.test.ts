import { it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { type ProviderStub, startProviderStub } from "../support/ProviderStub.js"
import { clientFor, keys, rawCall, TestServer } from "../support/TestServer.js"

let stub: ProviderStub
beforeAll(async () => {
  stub = await startProviderStub((key) => key === "sk-good" || key === "sk-ant-good")
  process.env["OPENAI_BASE_URL"] = stub.url
  process.env["ANTHROPIC_BASE_URL"] = stub.url
})
afterAll(() => stub.close())

describe("ask with cloud models", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("answers through OpenAI and Anthropic with the caller's key, keeping only real citations", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        yield* alice.memories.process({
          headers: {},
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
        expect(openai.answer).toBe("Marie Curie was born in Warsaw [1], not Vienna.")
        expect(openai.citations.map((c) => c.index)).toEqual([1])
        const sent = stub.seen.find((s) => s.path === "/v1/chat/completions")!
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
        expect(stub.seen.find((s) => s.path === "/v1/messages")!.headers["anthropic-version"]).toBe(
          "2023-06-01"
        )
      })
    )

    it.effect("answers 422 without provider_key and 502 when the provider refuses", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const withoutKey = yield* rawCall(keys.alice, "POST", "/v1/ask", {
          question: "Where?",
          model: "openai:gpt-4o"
        })
        expect(withoutKey.status).toBe(422)
        expect(withoutKey.body.detail).toContain("provider_key: is required for openai:gpt-4o")
        const refused = yield* Effect.flip(
          alice.ask.ask({ payload: { question: "Where?", model: "openai:gpt-4o", provider_key: "sk-bad" } })
        )
        expect(refused).toMatchObject({ detail: expect.stringContaining("401") })
        expect(JSON.stringify(refused)).not.toContain("sk-bad")
      })
    )
  })
})
