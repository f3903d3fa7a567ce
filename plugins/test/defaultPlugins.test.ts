import { it } from "@effect/vitest"
import { Pipeline } from "@umo/core"
import { defaultPlugins, UseLiteEmbedder } from "@umo/plugins"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"

const pipeline = Pipeline.make(defaultPlugins())

describe("the default pipeline", () => {
  it.layer(UseLiteEmbedder.layer())((it) => {
    it.effect("turns the quickstart sentence into a complete UMO", () =>
      Effect.gen(function* () {
        const umo = yield* pipeline.process({
          content: "Marie Curie was born in Warsaw and worked in Paris."
        })
        expect(umo.entities).toContainEqual({ text: "Marie Curie", type: "PERSON", start: 0, end: 11 })
        expect(umo.entities.some((e) => e.type === "LOCATION")).toBe(true)
        expect(umo.svo_triples.length).toBeGreaterThan(0)
        expect(umo.topics.length).toBeGreaterThan(0)
        expect(umo.summary).not.toBe("")
        expect(["positive", "neutral", "negative"]).toContain(umo.tone.label)
        expect(umo.pipeline.map((p) => p.stage)).toEqual([
          "capture",
          "normalize",
          "extract",
          "enrich",
          "parse",
          "embed",
          "validate"
        ])
        expect(umo.embedding.dimensions).toBe(512)
      })
    )

    it.effect("scores a rich paragraph clearly higher than a throwaway remark", () =>
      Effect.gen(function* () {
        const rich = yield* pipeline.process({
          content:
            "Marie Curie was born in Warsaw in 1867 and moved to Paris in 1891. She discovered polonium and radium with Pierre Curie, and she won the Nobel Prize in Physics in 1903."
        })
        const poor = yield* pipeline.process({ content: "ok lol" })
        expect(rich.quality_score).toBeGreaterThan(0.75)
        expect(poor.quality_score).toBeLessThan(0.3)
      })
    )

    it.effect("rejects blank content at the capture stage", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(pipeline.process({ content: " \u0000 \n " }))
        expect(error).toMatchObject({ reason: "InvalidInput" })
        expect(["capture", "normalize"]).toContain(error.stage)
      })
    )

    it.effect("is deterministic: same input, same semantic hash (property)", () =>
      Effect.gen(function* () {
        const word = fc.constantFrom(
          "Anna",
          "met",
          "Bob",
          "in",
          "Paris",
          "on",
          "Friday",
          "and",
          "they",
          "bought",
          "a",
          "red",
          "bicycle",
          "for",
          "$200",
          ".",
          "Google",
          "hired",
          "her",
          "last",
          "week",
          "happy",
          "sad",
          "the",
          "garden"
        )
        const samples = fc.sample(fc.array(word, { minLength: 1, maxLength: 40 }), {
          numRuns: 100,
          seed: 2026
        })
        for (const words of samples) {
          const content = words.join(" ")
          const first = yield* pipeline.process({ content, timestamp: new Date("2026-02-03T04:05:06Z") })
          const again = yield* pipeline.process({ content, timestamp: new Date("2026-02-03T04:05:06Z") })
          expect(again.semantic_hash).toBe(first.semantic_hash)
          expect(again.content_hash).toBe(first.content_hash)
          expect(yield* pipeline.reproduceSemanticHash(first)).toBe(first.semantic_hash)
        }
      })
    )
  })
})
