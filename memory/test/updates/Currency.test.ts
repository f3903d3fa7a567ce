import { it } from "@effect/vitest"
import { AccountStore, Embedder, makeEmbedder, type UpdateJudgeShape } from "@umo/core"
import { Memory, MemoryAccount, memoryLayer } from "@umo/memory"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"

/** Every text equally near every other: the order comes from the words and the judge. */
const FlatEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-flat", dimensions: 4, maxChunkChars: 200 },
    embedBatch: (texts) => Effect.succeed(texts.map(() => [1, 0.2, 0.1, 0.05]))
  })
)

/** Says a newer memory marked NEW outdates an earlier one; `never` says nothing is. */
const marked: UpdateJudgeShape = {
  name: "marked",
  threshold: 0.5,
  score: (pairs) => Effect.succeed(pairs.map((p) => (p.newer.includes("NEW") ? 0.9 : 0.1)))
}
const never: UpdateJudgeShape = {
  name: "never",
  threshold: 0.5,
  score: (pairs) => Effect.succeed(pairs.map(() => 0))
}

const withJudge = (judge: UpdateJudgeShape) =>
  memoryLayer({ updateJudge: judge }).pipe(
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite(),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
        embedder: FlatEmbedder
      })
    )
  )

/**
 * Captures that infer nothing (the judge is not asked at capture), then a question about now: the
 * order search gives, first to last, as the memories' texts.
 */
const askAboutNow = Effect.gen(function* () {
  const memory = yield* Memory
  const accounts = yield* AccountStore
  const account = yield* Effect.orDie(accounts.ensureAccount(`currency-${crypto.randomUUID()}`))
  return yield* Effect.provideService(
    Effect.gen(function* () {
      for (const [content, timestamp] of [
        ["I live in Tooting, and I love living in Tooting.", "2023-01-01T00:00:00Z"],
        ["NEW chapter: loving the view from the balcony.", "2023-06-01T00:00:00Z"]
      ] as const)
        yield* memory.capture({ content, timestamp, user_id: "ana", infer_updates: false })
      const { results } = yield* memory.search({
        query: "Where does Ana live now?",
        user_id: "ana",
        limit: 5
      })
      return results.map((r) => r.content_text)
    }),
    MemoryAccount,
    account
  )
})

describe("a question about now, with the update judge", () => {
  it.layer(withJudge(never), { timeout: "120 seconds" })((it) => {
    it.effect("keeps the first stage's order when the judge says nothing is out of date", () =>
      Effect.map(askAboutNow, (order) => expect(order[0]).toMatch(/^I live in Tooting/))
    )
  })
  it.layer(withJudge(marked), { timeout: "120 seconds" })((it) => {
    it.effect(
      "puts the newer memory first where the judge says it outdates the earlier, though capture decided nothing",
      () =>
        Effect.map(askAboutNow, (order) =>
          expect(order).toEqual([
            "NEW chapter: loving the view from the balcony.",
            "I live in Tooting, and I love living in Tooting."
          ])
        )
    )
  })
})
