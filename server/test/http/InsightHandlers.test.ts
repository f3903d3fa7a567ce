import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { clientFor, keys, rawCall, TestServer } from "../support/TestServer.js"

describe("match and explain", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    const capture = (content: string) =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        return (yield* alice.memories.process({ headers: {}, payload: { content, source: "notes" } })).data
          .umo_id
      })

    it.effect(
      "POST /v1/match scores related, unrelated and duplicate memories, with a breakdown on request",
      () =>
        Effect.gen(function* () {
          const alice = yield* clientFor(keys.alice)
          const a = yield* capture("Marie Curie was born in Warsaw and worked in Paris on radioactivity.")
          const b = yield* capture("In Paris, Marie Curie studied radioactivity with Pierre Curie.")
          const c = yield* capture("The quarterly budget was approved at $2 million on Tuesday.")
          const d = yield* capture("Marie Curie was born in Warsaw and worked in Paris on radioactivity.")
          const related = (yield* alice.insight.match({
            payload: { source_ulid: a, candidate_ulid: b, explain: true }
          })).data
          const unrelated = (yield* alice.insight.match({ payload: { source_ulid: a, candidate_ulid: c } }))
            .data
          const duplicate = (yield* alice.insight.match({ payload: { source_ulid: a, candidate_ulid: d } }))
            .data
          expect(related.score).toBeGreaterThan(unrelated.score)
          expect(related).toMatchObject({ relationship: "related", matched: true, threshold: 0.5 })
          expect(related.breakdown).toMatchObject({
            shared_entities: expect.arrayContaining([{ type: "PERSON", text: "marie curie" }]),
            shared_topics: expect.any(Array)
          })
          expect(unrelated).toMatchObject({ relationship: "unrelated", matched: false })
          expect(unrelated).not.toHaveProperty("breakdown")
          expect(duplicate).toMatchObject({ relationship: "duplicate", matched: true, score: 1 })
          for (const r of [related, unrelated, duplicate]) {
            expect(r.score).toBeGreaterThanOrEqual(0)
            expect(r.score).toBeLessThanOrEqual(1)
            expect(r.similarity).toBeGreaterThanOrEqual(0)
            expect(r.similarity).toBeLessThanOrEqual(1)
          }
          const strict = (yield* alice.insight.match({
            payload: { source_ulid: a, candidate_ulid: b, threshold: 0.99 }
          })).data
          expect(strict).toMatchObject({ relationship: "unrelated", matched: false })
        })
    )

    it.effect("match answers 404 for another account's or unknown ids and 422 for a bad threshold", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const bob = yield* clientFor(keys.bob)
        const a = yield* capture("Jane Austen wrote Pride and Prejudice in 1813.")
        const mine = (yield* bob.memories.process({
          headers: {},
          payload: { content: "Bob's own note about tea." }
        })).data.umo_id
        expect(
          yield* Effect.flip(bob.insight.match({ payload: { source_ulid: mine, candidate_ulid: a } }))
        ).toMatchObject({
          detail: expect.stringContaining("no memory")
        })
        expect(
          yield* Effect.flip(alice.insight.match({ payload: { source_ulid: a, candidate_ulid: "nope" } }))
        ).toMatchObject({
          detail: expect.stringContaining("no memory")
        })
        expect(
          yield* rawCall(keys.alice, "POST", "/v1/match", {
            source_ulid: a,
            candidate_ulid: a,
            threshold: 1.5
          })
        ).toEqual({
          status: 422,
          body: { detail: "invalid request body: threshold: Expected a value between 0 and 1" }
        })
      })
    )

    it.effect("GET /v1/memories/{id}/explain says what was extracted and reproduces the capture", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const bob = yield* clientFor(keys.bob)
        const id = yield* capture("Marie Curie was born in Warsaw and worked in Paris.")
        const { data } = yield* alice.insight.explain({ params: { id }, query: {} })
        expect(data.human.summary).toContain("3 entities")
        expect(data.human.key_reasons).toEqual(
          expect.arrayContaining([
            expect.stringContaining("Marie Curie (PERSON)"),
            expect.stringContaining("Tone:")
          ])
        )
        expect(data.audit).toMatchObject({ verification_mode: "cryptographic", reproducible: true })
        const why = yield* alice.insight.explain({
          params: { id },
          query: { query: "Where did Marie Curie work?" }
        })
        expect(why.data.human.key_reasons[0]).toMatch(/^Semantic similarity to the query: 0\.\d+/)
        expect(why.data.human.key_reasons).toContainEqual(
          expect.stringContaining("Mentions the query's entities: Marie Curie")
        )
        expect(yield* Effect.flip(bob.insight.explain({ params: { id }, query: {} }))).toMatchObject({
          detail: expect.stringContaining("no memory")
        })
      })
    )
  })
})
