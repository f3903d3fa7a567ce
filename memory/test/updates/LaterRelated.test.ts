import { it } from "@effect/vitest"
import { type AccountStore, Embedder, type JudgedPair, makeEmbedder, type UpdateJudgeShape } from "@umo/core"
import { Memory } from "@umo/memory"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { as, testMemory } from "../support/TestMemory.js"

/**
 * Texts with "far" point one way, the rest another: two of a kind are near (cosine 1, linked by
 * nearness alone), one of each is 0.53 near (considered, linked only if the judge says so).
 */
const TwoWayEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-two-way", dimensions: 4, maxChunkChars: 200 },
    embedBatch: (texts) =>
      Effect.succeed(
        texts.map((t) => (t.includes("far") ? [1, 0, 0, 0] : [0.5, 0.8, 0.1 * (t.length % 2), 0]))
      )
  })
)

/** Likely, not sure: a pair whose newer memory says NEW scores 0.7, under the 0.9 capture supersedes at. */
const unsureJudge: UpdateJudgeShape = {
  name: "unsure",
  threshold: 0.9,
  score: (pairs: ReadonlyArray<JudgedPair>) =>
    Effect.succeed(pairs.map((p) => (p.newer.includes("NEW") ? 0.7 : 0.1)))
}

const layer = testMemory(TwoWayEmbedder, { updateJudge: unsureJudge })

const scopes = [{ user_id: "u1" }, { user_id: "u2" }, { agent_id: "bot" }, {}] as const
const scopeKey = (m: { user_id: string | null; agent_id: string | null }) =>
  m.user_id !== null ? `user:${m.user_id}` : m.agent_id !== null ? `agent:${m.agent_id}` : "account"
const day = (d: number) => `2024-02-${String(d).padStart(2, "0")}T00:00:00Z`

describe("later related memories", () => {
  it.layer(layer, { timeout: "300 seconds" })((it) => {
    it.effect("link a result to later memories of its person by nearness or by the judge, newest first", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const tag = crypto.randomUUID().slice(0, 8)
        const capture = (content: string, d: number, user_id = "ana") =>
          as(`links-${tag}`)(
            memory.capture({ content: `${content} ${tag}`, timestamp: day(d), user_id, infer_updates: false })
          )
        const home = yield* capture("I live far out in Madrid", 1)
        const moved = yield* capture("Signed the lease in Lisbon NEW", 5)
        yield* capture("Had a quiet lunch", 6)
        const alsoFar = yield* capture("far from the sea, still", 7)
        yield* capture("I live far out in Lisbon", 8, "bea")
        const found = yield* as(`links-${tag}`)(
          memory.search({ query: `far Madrid ${tag}`, user_id: "ana", limit: 5 })
        )
        const first = found.results.find((r) => r.umo_id === home.umo_id)!
        expect(first).toBeDefined()
        // Near (a "far" text of Ana's, later) by nearness, the lease by the judge, lunch by neither;
        // Bea's is another person's, and nothing earlier is ever linked.
        expect(first.later_related.map((l) => [l.umo_id, l.link])).toEqual([
          [alsoFar.umo_id, "nearness"],
          [moved.umo_id, "judge"]
        ])
        expect(first.later_related[1]!.score).toBe(0.7)
        expect(Date.parse(first.later_related[0]!.timestamp)).toBe(Date.parse(day(7)))
        const asked = yield* as(`links-${tag}`)(
          memory.answer({ question: `Where does Ana live, far ${tag}?`, user_id: "ana" })
        )
        for (const c of asked.citations)
          expect(c.later_related).toEqual(
            found.results.find((r) => r.umo_id === c.umo_id)?.later_related ?? c.later_related
          )
      })
    )

    it.effect(
      "never link across scopes or accounts, nor to anything earlier or outside the caller's filter",
      () =>
        Effect.gen(function* () {
          const memory = yield* Memory
          const run = Effect.runPromiseWith(yield* Effect.context<Memory | AccountStore>())
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(
                  fc.record({
                    account: fc.constantFrom("a", "b"),
                    scope: fc.integer({ min: 0, max: scopes.length - 1 }),
                    day: fc.integer({ min: 1, max: 28 }),
                    far: fc.boolean(),
                    tagged: fc.boolean()
                  }),
                  { minLength: 2, maxLength: 10 }
                ),
                fc.integer({ min: 0, max: scopes.length - 1 }),
                fc.boolean(),
                async (captures, asked, filtered) => {
                  const tag = crypto.randomUUID().slice(0, 8)
                  const account = (a: string) => `links-${a}-${tag}`
                  const owner = new Map<string, string>()
                  for (const [i, c] of captures.entries()) {
                    const { umo_id } = await run(
                      as(account(c.account))(
                        memory.capture({
                          content: `${c.far ? "far" : "near"} note ${i} NEW ${tag}`,
                          timestamp: day(c.day),
                          metadata: { tagged: c.tagged },
                          infer_updates: false,
                          ...scopes[c.scope]
                        })
                      )
                    )
                    owner.set(umo_id, c.account)
                  }
                  const found = await run(
                    as(account("a"))(
                      memory.search({
                        query: `note ${tag}`,
                        limit: 10,
                        ...scopes[asked],
                        ...(filtered ? { metadata: { tagged: true } } : {})
                      })
                    )
                  )
                  for (const result of found.results)
                    for (const link of result.later_related) {
                      expect(owner.get(link.umo_id), "a link to another account's memory").toBe("a")
                      const linked = await run(as(account("a"))(memory.get(link.umo_id)))
                      expect(scopeKey(linked)).toBe(scopeKey(result))
                      expect(Date.parse(linked.timestamp)).toBeGreaterThan(Date.parse(result.timestamp))
                      if (filtered) expect(linked.metadata["tagged"]).toBe(true)
                    }
                }
              ),
              { numRuns: 15 }
            )
          )
        })
    )
  })
})
