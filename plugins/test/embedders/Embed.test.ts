import { it } from "@effect/vitest"
import { Embedder, makeDraft, makeEmbedder } from "@umo/core"
import { chunkSpans, embed, splitSentences } from "@umo/plugins"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"

describe("chunkSpans", () => {
  it("covers the text in order with chunks no longer than the limit (property)", () => {
    const sentence = fc.string({ unit: fc.constantFrom("a", "b", " ", "."), minLength: 1, maxLength: 300 })
    fc.assert(
      fc.property(
        fc.array(sentence, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 20, max: 400 }),
        (parts, max) => {
          const text = parts.join(" ")
          const chunks = chunkSpans(text, splitSentences(text), max)
          let cursor = chunks[0]?.start ?? 0
          for (const c of chunks) {
            expect(c.end - c.start).toBeLessThanOrEqual(max)
            expect(c.start).toBeGreaterThanOrEqual(cursor)
            expect(text.slice(cursor, c.start).trim()).toBe("")
            cursor = c.end
          }
          expect(text.slice(cursor).trim()).toBe("")
        }
      ),
      { numRuns: 200 }
    )
  })

  it("never cuts a surrogate pair in two (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", " ", "🙂", "𝄞"), minLength: 1, maxLength: 400 }),
        fc.integer({ min: 2, max: 50 }),
        (text, max) => {
          for (const c of chunkSpans(text, splitSentences(text), max)) {
            expect(text.slice(c.start, c.end).isWellFormed(), `${c.start}-${c.end}`).toBe(true)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("keeps a short text in one chunk", () => {
    const text = "One sentence. Two sentences."
    expect(chunkSpans(text, splitSentences(text), 1000)).toEqual([{ start: 0, end: text.length }])
  })
})

describe("embed plugin", () => {
  const calls: Array<number> = []
  const Tiny = Layer.succeed(Embedder)(
    makeEmbedder({
      model: { id: "tiny", dimensions: 1, maxChunkChars: 30 },
      batchSize: 100,
      embedBatch: (texts) => {
        calls.push(texts.length)
        return Effect.succeed(texts.map(() => [2]))
      }
    })
  )

  it.effect("embeds every chunk of a long text in one batched call", () =>
    Effect.gen(function* () {
      const content = "First sentence here. Second sentence here. Third sentence is here."
      const draft = {
        ...makeDraft({ content, source: null, timestamp: "2026-01-01T00:00:00.000Z" }),
        sentences: splitSentences(content)
      }
      const next = yield* embed().run(draft)
      expect(next.embedding?.model).toBe("tiny")
      expect(next.embedding?.chunks.map((c) => content.slice(c.start, c.end))).toEqual([
        "First sentence here.",
        "Second sentence here.",
        "Third sentence is here."
      ])
      expect(next.embedding?.chunks[0]?.vector).toEqual([1])
      expect(calls).toEqual([3])
    }).pipe(Effect.provide(Tiny))
  )
})
