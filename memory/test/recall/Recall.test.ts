import { it } from "@effect/vitest"
import { AccountStore, Embedder, makeEmbedder, Reranker, RerankerError } from "@umo/core"
import { Memory, MemoryAccount, memoryLayer } from "@umo/memory"
import { Database, FactFinderLive, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"
import * as Recall from "../../src/recall/Recall.js"

/** Vectors from letters: enough for a first stage that ranks by shared words and spelling. */
const LetterEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.succeed(texts.map((t) => Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i) || 1) % 7)))
  })
)

const Storage = StorageStack.layer({
  database: Database.pglite(),
  signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
  embedder: LetterEmbedder
})

/** A reranker of the test's own: a memory that mentions a zebra answers every query. */
const zebraFirst = (fail: boolean) =>
  Layer.succeed(Reranker)({
    model: "zebra",
    score: (_query, passages) =>
      fail
        ? Effect.fail(new RerankerError({ model: "zebra", detail: "the zebra ran off" }))
        : Effect.succeed(passages.map((p) => (p.includes("zebra") ? 10 : 0)))
  })

const searchWith = (reranker: Layer.Layer<Reranker> | undefined) =>
  Effect.gen(function* () {
    const recall = yield* Recall.make
    const memory = yield* Memory
    const account = yield* Effect.orDie((yield* AccountStore).ensureAccount(`recall-${crypto.randomUUID()}`))
    const contents = [
      "Garden notes: the tomatoes need water on Monday.",
      "Garden notes: the roses need pruning in March.",
      "Garden notes: the basil needs sun.",
      "Garden notes: a zebra was seen near the fence.",
      "Kitchen notes: the oven timer is broken."
    ]
    const ids = []
    for (const content of contents)
      ids.push((yield* Effect.provideService(memory.capture({ content }), MemoryAccount, account)).umo_id)
    const order = (rerank: boolean) =>
      Effect.map(recall.search(account.account_id, "garden notes", { limit: 5, rerank }), ({ hits }) =>
        hits.map((h) => h.memory.umo_id)
      )
    return { zebra: ids[3]!, plain: yield* order(false), reranked: yield* order(true) }
  }).pipe(
    Effect.provide(FactFinderLive.layer),
    Effect.provide(reranker ? Layer.merge(memoryLayer(), reranker) : memoryLayer())
  )

describe("Recall with a reranker", () => {
  it.layer(Storage, { timeout: "120 seconds" })((it) => {
    it.effect("fuses the reranker's order with the first stage's: what it prefers moves up", () =>
      Effect.gen(function* () {
        const { zebra, plain, reranked } = yield* searchWith(zebraFirst(false)).pipe(
          Effect.provide(zebraFirst(false))
        )
        expect(new Set(reranked)).toEqual(new Set(plain))
        // The first stage puts the zebra below the top two; fused with the reranker it rises.
        expect(plain.indexOf(zebra)).toBeGreaterThan(1)
        expect(reranked.indexOf(zebra)).toBeLessThan(plain.indexOf(zebra))
      })
    )

    it.effect("a reranker that fails leaves the first stage's order", () =>
      Effect.gen(function* () {
        const { plain, reranked } = yield* searchWith(zebraFirst(true)).pipe(Effect.provide(zebraFirst(true)))
        expect(reranked).toEqual(plain)
      })
    )
  })
})

describe("Recall with records kept between searches", () => {
  it.layer(Storage, { timeout: "120 seconds" })((it) => {
    it.effect("never answers with a record that changed or left since it was kept", () =>
      Effect.gen(function* () {
        const recall = yield* Recall.make
        const memory = yield* Memory
        const account = yield* Effect.orDie(
          (yield* AccountStore).ensureAccount(`recall-kept-${crypto.randomUUID()}`)
        )
        const as = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.orDie(Effect.provideService(effect, MemoryAccount, account))
        const capture = (content: string, timestamp: string, supersedes: Array<string> = []) =>
          Effect.map(as(memory.capture({ content, timestamp, supersedes })), (r) => r.umo_id)
        const found = (includeSuperseded = false) =>
          Effect.map(
            recall.search(account.account_id, "where do I live", { limit: 10, includeSuperseded }),
            ({ hits }) => new Map(hits.map((h) => [h.memory.umo_id, h.memory]))
          )
        const stored = (id: string) => as(memory.get(id))
        const madrid = yield* capture("I live in Madrid.", "2025-03-01T00:00:00Z")
        const garden = yield* capture("I live for my garden, the basil needs sun.", "2025-03-02T00:00:00Z")
        // Searched twice: the second answers from the kept records.
        yield* found(true)
        expect([...(yield* found(true)).keys()].sort()).toEqual([garden, madrid].sort())

        // A memory captured since with an older time is replaced by a kept one.
        const lisbon = yield* capture("I live in Lisbon.", "2025-01-01T00:00:00Z")
        expect((yield* stored(madrid)).supersedes).toEqual([lisbon])
        const withLisbon = yield* found(true)
        expect(withLisbon.get(madrid)?.superseded_by).toBe(null)
        expect(withLisbon.get(lisbon)?.superseded_by).toBe(madrid)

        // Superseded since it was kept: it leaves default searches, and is read again when asked for.
        const porto = yield* capture("I live in Porto now.", "2025-04-01T00:00:00Z", [madrid])
        expect((yield* found()).has(madrid)).toBe(false)
        const all = yield* found(true)
        expect(all.get(madrid)?.superseded_by).toBe(porto)
        expect(all.get(porto)?.superseded_by).toBe(null)

        // Deleted since it was kept: gone.
        yield* as(memory.forget(garden))
        expect((yield* found(true)).has(garden)).toBe(false)
      }).pipe(Effect.provide(FactFinderLive.layer), Effect.provide(memoryLayer()))
    )
  })
})
