import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { it } from "@effect/vitest"
import type { UpdateJudgeShape } from "@umo/core"
import { LanguageModelJudge } from "@umo/plugins"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect } from "vitest"

/** What the stub was sent, request by request. */
const received: Array<{ path: string; authorization: string | undefined; body: Record<string, unknown> }> = []
/** Answers 500 while set. */
let failing = false

/** A chat completion as OpenAI's API answers one with `logprobs` and `top_logprobs` (one token). */
const completion = (yes: number) => ({
  id: "chatcmpl-stub",
  object: "chat.completion",
  created: 1764000000,
  model: "stub-model",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: yes >= 0.5 ? "Yes" : "No", refusal: null },
      logprobs: {
        content: [
          {
            token: yes >= 0.5 ? "Yes" : "No",
            logprob: Math.log(Math.max(yes, 1 - yes)),
            bytes: [89],
            top_logprobs: [
              { token: "Yes", logprob: Math.log(yes * 0.9), bytes: [89, 101, 115] },
              { token: " yes", logprob: Math.log(yes * 0.1), bytes: [32, 121, 101, 115] },
              { token: "No", logprob: Math.log(1 - yes), bytes: [78, 111] }
            ]
          }
        ],
        refusal: null
      },
      finish_reason: "length"
    }
  ],
  usage: { prompt_tokens: 120, completion_tokens: 1, total_tokens: 121 }
})

const read = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ""
    request.on("data", (chunk) => (text += chunk))
    request.on("end", () => resolve(text))
  })

let server: Server
let baseUrl = ""
beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = JSON.parse(await read(request)) as Record<string, unknown>
    received.push({ path: request.url ?? "", authorization: request.headers.authorization, body })
    if (failing) {
      response.writeHead(500, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: "overloaded", type: "server_error" } }))
      return
    }
    const user = (body["messages"] as Array<{ content: string }>)[1]!.content
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(completion(user.includes("Greenwich") ? 0.8 : 0.1)))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const endpoint = () => ({ baseUrl, model: "stub-model", apiKey: "sk-test" })

describe("LanguageModelJudge", () => {
  it.effect(
    "asks in the chat-completions format for one token with logprobs, and reads P(yes) from them",
    () =>
      Effect.gen(function* () {
        received.length = 0
        const judge = yield* LanguageModelJudge.make(endpoint())
        const [moved, other] = yield* judge.score([
          { earlier: "I live in Tooting.", newer: "Keys to the new flat in Greenwich!" },
          { earlier: "I live in Tooting.", newer: "My sister moved to Leeds." }
        ])
        expect(moved).toBeCloseTo(0.8, 6)
        expect(other).toBeCloseTo(0.1, 6)
        expect(received).toHaveLength(2)
        for (const r of received) {
          expect(r.path).toBe("/v1/chat/completions")
          expect(r.authorization).toBe("Bearer sk-test")
          expect(r.body).toMatchObject({ model: "stub-model", max_tokens: 1, logprobs: true, temperature: 0 })
          const messages = r.body["messages"] as Array<{ role: string; content: string }>
          expect(messages.map((m) => m.role)).toEqual(["system", "user"])
          expect(messages[1]!.content).toMatch(/^EARLIER: I live in Tooting\.\nNEWER: /)
        }
      }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  it("reads the answer's word where the endpoint gives no logprobs", () => {
    const plain = (content: string) => ({ choices: [{ message: { content }, logprobs: null }] })
    expect(LanguageModelJudge.probabilityOfYes(plain("Yes."))).toBe(1)
    expect(LanguageModelJudge.probabilityOfYes(plain("no"))).toBe(0)
    expect(LanguageModelJudge.probabilityOfYes(plain("Maybe"))).toBeUndefined()
  })

  it.effect(
    "decides only the pairs the learned judge is unsure of; when it fails, the learned scores stand",
    () =>
      Effect.gen(function* () {
        const learnedScores = [0.02, 0.5, 0.97, 0.4]
        const learned: UpdateJudgeShape = {
          name: "learned",
          threshold: 0.6,
          score: () => Effect.succeed(learnedScores)
        }
        const pairs = [
          { earlier: "a", newer: "b" },
          { earlier: "I live in Tooting.", newer: "Keys to the new flat in Greenwich!" },
          { earlier: "c", newer: "d" },
          { earlier: "I live in Tooting.", newer: "My sister moved to Leeds." }
        ]
        const both = LanguageModelJudge.decidingUnsure(learned, yield* LanguageModelJudge.make(endpoint()))
        received.length = 0
        const scores = yield* both.score(pairs)
        expect(received).toHaveLength(2)
        expect(scores[0]).toBe(0.02)
        expect(scores[2]).toBe(0.97)
        expect(scores[1]! >= both.threshold).toBe(true)
        expect(scores[3]! < both.threshold).toBe(true)
        failing = true
        try {
          expect(yield* both.score(pairs)).toEqual(learnedScores)
        } finally {
          failing = false
        }
      }).pipe(Effect.provide(FetchHttpClient.layer))
  )
})
