import { it } from "@effect/vitest"
import { defaultCategories, Embedder, makeEmbedder } from "@umo/core"
import { Categorizer, Memory, memoryLayer } from "@umo/memory"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"
import { as } from "../support/TestMemory.js"

/**
 * Letters as vectors, each batch answered after 30 ms (long enough for a capture to start while
 * the warm-up's batches are under way), every text embedded kept in `embedded`, in order.
 */
const counting = () => {
  const embedded: Array<string> = []
  const embedder = makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.as(
        Effect.sleep("30 millis"),
        texts.map((t) => {
          embedded.push(t)
          return Array.from({ length: 8 }, (_, i) => ((t.charCodeAt(i) || 1) % 7) + 1)
        })
      )
  })
  return { embedded, layer: Layer.succeed(Embedder)(embedder) }
}

const withWarmUp = (embedder: Layer.Layer<Embedder>, warmUp: boolean) =>
  memoryLayer({}, { warmUp }).pipe(
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite(),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
        embedder
      })
    )
  )

const catalogTexts = new Set(defaultCategories.flatMap(Categorizer.categoryTexts))
const timesCatalogEmbedded = (embedded: ReadonlyArray<string>) =>
  embedded.filter((t) => t === [...catalogTexts][0]).length

describe("the capture path's warm-up (memoryLayer's warmUp, which the server asks for)", () => {
  it.live(
    "embeds the default categories before the first capture, which then embeds only its own text",
    () => {
      const { embedded, layer } = counting()
      return Effect.gen(function* () {
        const memory = yield* Memory
        // The warm-up runs in the background: the default catalog, and the slot sense's examples.
        while (timesCatalogEmbedded(embedded) === 0 || embedded.length < catalogTexts.size + 10)
          yield* Effect.sleep("20 millis")
        yield* Effect.sleep("200 millis")
        const before = embedded.length
        const { umo_id } = yield* memory.capture({ content: "I started a pottery class on Tuesdays." })
        const byCapture = embedded.slice(before)
        expect(byCapture.filter((t) => catalogTexts.has(t))).toEqual([])
        // Its own chunk, and the sentences the slot sense reads: a few texts, not a catalog's.
        expect(byCapture.length).toBeLessThanOrEqual(3)
        expect((yield* memory.get(umo_id)).categories.length).toBeGreaterThan(0)
      }).pipe(as("warm"), Effect.provide(withWarmUp(layer, true)))
    }
  )

  it.live("and a capture arriving while it runs waits for that one embedding of the catalog", () => {
    const { embedded, layer } = counting()
    return Effect.gen(function* () {
      const memory = yield* Memory
      // At once: the warm-up's catalog is still being embedded (its batches take 30 ms each).
      yield* Effect.all(
        [
          memory.capture({ content: "My sister moved to Porto." }),
          memory.capture({ content: "We adopted a cat called Miso." })
        ],
        { concurrency: "unbounded" }
      )
      expect(timesCatalogEmbedded(embedded)).toBe(1)
    }).pipe(as("racing"), Effect.provide(withWarmUp(layer, true)))
  })

  it.live("is not run unless asked: the first capture embeds the catalog itself", () => {
    const { embedded, layer } = counting()
    return Effect.gen(function* () {
      const memory = yield* Memory
      yield* Effect.sleep("300 millis")
      expect(embedded).toEqual([])
      yield* memory.capture({ content: "I started a pottery class on Tuesdays." })
      expect(timesCatalogEmbedded(embedded)).toBe(1)
    }).pipe(as("cold"), Effect.provide(withWarmUp(layer, false)))
  })
})
