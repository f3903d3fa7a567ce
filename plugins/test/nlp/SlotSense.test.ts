import { existsSync } from "node:fs"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Embedder, sha256Hex } from "@umo/core"
import { TransformersEmbedder } from "@umo/plugins"
import { SlotSense, statedFacts } from "@umo/plugins/nlp"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"

const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"
const present = existsSync(join(modelsDir, TransformersEmbedder.defaultModel, "onnx", "model_int8.onnx"))

/** What the sense adds to the rules' facts of a text, as `attribute|value` lines. */
const sensed = (sense: SlotSense.SlotSense, text: string) =>
  Effect.map(sense.facts(text, statedFacts(text)), (facts) => facts.map((f) => `${f.attribute}|${f.value}`))

/** The sense made once for the tests that share the default embedder (its examples embed in seconds). */
const defaultSense = Effect.runSync(Effect.cached(Effect.flatMap(Embedder, (e) => SlotSense.make(e.embed))))

describe.skipIf(!present)("SlotSense, with the default embedder", () => {
  it.layer(TransformersEmbedder.layer({ modelsDir, precision: "int8" }), { timeout: 120_000 })((it) => {
    it.effect(
      "reads a slot no rule reads, with the value the clause names",
      () =>
        Effect.gen(function* () {
          const sense = yield* defaultSense
          // None of these is read by a rule: the sense alone says which fact they state.
          for (const [text, expected] of [
            ["Laptop set up and first standup done at Zentrix.", "employer|zentrix"],
            ["The view from our new Utrecht apartment is unreal.", "residence|utrecht"],
            ["First long drive in the Skoda Octavia, so smooth.", "car|skoda octavia"]
          ] as const) {
            expect(
              statedFacts(text).filter((f) => f.mode !== "keep"),
              text
            ).toEqual([])
            expect(yield* sensed(sense, text), text).toEqual([expected])
          }
        }),
      120_000
    )

    it.effect(
      "states nothing for someone else, a wish, a plan, a question, an end or what a rule read",
      () =>
        Effect.gen(function* () {
          const sense = yield* defaultSense
          for (const text of [
            "My cousin's first standup at Zentrix went well.",
            "She got the keys to her Utrecht flat today.",
            "Thinking about applying to Zentrix one day.",
            "If the offer comes through we'd move to Utrecht.",
            "We're moving to Utrecht in the spring!",
            "Is Zentrix hiring engineers?",
            "Sold the Skoda Octavia last week.",
            "The Skoda Octavia is gone, sold it to my neighbour",
            "Officially quit keto this week, bread is back",
            // A diet word naming food made or eaten is no diet of the writer's.
            "I made vegan ice cream last Friday and shared it with my group",
            "Sharing my love for dairy-free desserts has been fun",
            "I live in Utrecht and love it."
          ])
            expect(yield* sensed(sense, text), text).toEqual([])
        }),
      120_000
    )

    it.effect(
      "reads a value whose clause ends or denies something else, further off",
      () =>
        Effect.gen(function* () {
          const sense = yield* defaultSense
          const text = "Vegan for three years now and honestly never felt better"
          expect(yield* sensed(sense, text), text).toEqual(["diet|vegan"])
        }),
      120_000
    )

    it.effect(
      "states nothing from a string of names and nouns: a name needs its slot's word before it",
      () =>
        Effect.gen(function* () {
          const sense = yield* defaultSense
          const words = [
            "Paris",
            "budget",
            "Tesla",
            "guitar",
            "Melanie",
            "Zentrix",
            "museum",
            "Octavia",
            "recipe"
          ]
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }),
                async (ws) => {
                  const text = `${ws.join(" ")}.`
                  expect(await Effect.runPromise(sensed(sense, text)), text).toEqual([])
                }
              ),
              { numRuns: 60 }
            )
          )
        }),
      120_000
    )
  })
})

describe("SlotSense, with an embedder that does not place sentences by meaning", () => {
  // A vector from each text's hash: the examples' neighbours are chance, so the check fails.
  const hashed = (texts: ReadonlyArray<string>) =>
    Effect.succeed(
      texts.map((text) => {
        const digest = sha256Hex(text)
        const vector = Array.from(
          { length: 16 },
          (_, i) => Number.parseInt(digest.slice(i * 4, i * 4 + 4), 16) - 32_768
        )
        const norm = Math.hypot(...vector)
        return vector.map((x) => x / norm)
      })
    )

  it.effect("states nothing, whatever the text", () =>
    Effect.gen(function* () {
      const sense = yield* SlotSense.make(hashed)
      expect(sense).toBe(SlotSense.silent)
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
            expect(await Effect.runPromise(sense.facts(text, statedFacts(text)))).toEqual([])
          }),
          { numRuns: 50 }
        )
      )
    })
  )
})
