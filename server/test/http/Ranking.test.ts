import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { clientFor, keys, TestServer } from "../support/TestServer.js"

const notes = [
  "The dentist moved my appointment to Thursday afternoon.",
  "Bought oat milk, coffee beans and two lemons at the market.",
  "The quarterly report needs charts for the sales figures.",
  "Order ZQX-7731 shipped on Monday with the replacement parts.",
  "Order 5520 for the garden chairs was cancelled.",
  "Remember to water the tomatoes before the heat wave."
]
const chat = [
  "Caroline: What did you paint last weekend?",
  "Melanie: A lake at sunrise, with the kids helping.",
  "Caroline: That sounds lovely, send me a photo!"
]

describe("search ranking", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("combines vector, BM25 and timeline context, within the caller's account", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const bob = yield* clientFor(keys.bob)
        yield* alice.memories.batch({
          headers: {},
          payload: { items: notes.map((content) => ({ content, source: "notes" })) }
        })
        yield* alice.memories.batch({
          headers: {},
          payload: {
            items: chat.map((content) => ({ content, source: "chat/7", timestamp: "2026-05-01T10:00:00Z" }))
          }
        })
        yield* bob.memories.process({
          headers: {},
          payload: { content: "Order ZQX-7731 is Bob's, not Alice's." }
        })

        // A rare identifier: BM25 finds it whatever the embedding makes of it.
        const order = yield* alice.memories.query({ payload: { query: "ZQX-7731", limit: 3 } })
        expect(order.data.results[0]?.content_text).toBe(notes[3])
        expect(order.data.results.every((r) => !r.content_text.includes("Bob"))).toBe(true)

        // The reply is found with the question it answers, above unrelated notes.
        const paint = yield* alice.memories.query({
          payload: { query: "What did Melanie paint last weekend?" }
        })
        const texts = paint.data.results.map((r) => r.content_text)
        expect(texts.slice(0, 3)).toContain(chat[1])
        expect(texts.indexOf(chat[1]!)).toBeLessThan(Math.max(...notes.map((n) => texts.indexOf(n))))
        const scores = paint.data.results.map((r) => r.score)
        expect(scores).toEqual([...scores].sort((a, b) => b - a))

        const onlyChat = yield* alice.memories.query({
          payload: { query: "order shipped", source: "chat/7", limit: 10 }
        })
        expect(onlyChat.data.results.every((r) => chat.includes(r.content_text))).toBe(true)
      })
    )
  })
})
