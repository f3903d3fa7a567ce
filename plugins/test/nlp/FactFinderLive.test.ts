import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { make } from "../../src/nlp/FactFinderLive.js"

/** A clause no rule reads, so each capture of it asks the slot sense. */
const memory = "First standup done at Zentrix."

/**
 * An embedder that counts the calls embedding the sense's examples (the only calls of more than
 * a few texts) and fails the first `failures` of them; its vectors place nothing by meaning, so
 * the sense it makes is silent — what is counted here is how often it is made.
 */
const countingEmbed = (failures = 0) => {
  const calls = { examples: 0 }
  const embed = (texts: ReadonlyArray<string>) =>
    Effect.suspend(() => {
      if (texts.length > 20) calls.examples += 1
      if (texts.length > 20 && calls.examples <= failures) return Effect.fail("the model is not ready")
      return Effect.sleep("20 millis").pipe(Effect.as(texts.map((_, i) => [1, i % 7])))
    })
  return { calls, embed }
}

describe("FactFinderLive", () => {
  it.live("makes the slot sense once for captures that arrive together, and keeps it", () =>
    Effect.gen(function* () {
      const { calls, embed } = countingEmbed()
      const finder = yield* make(embed)
      yield* Effect.forEach(
        Array.from({ length: 16 }, () => memory),
        finder.read,
        { concurrency: "unbounded" }
      )
      yield* finder.read(memory)
      expect(calls.examples).toBe(1)
    })
  )

  it.live(
    "states the rules' facts when the sense cannot be made, and makes it again on the next capture",
    () =>
      Effect.gen(function* () {
        const { calls, embed } = countingEmbed(1)
        const finder = yield* make(embed)
        const moved = "I moved to Lisbon last month."
        const first = yield* finder.read(moved)
        expect(first.map((f) => f.value)).toEqual(["lisbon"])
        yield* finder.read(moved)
        yield* finder.read(moved)
        expect(calls.examples).toBe(2)
      })
  )

  it.live("never embeds when the sense is off", () =>
    Effect.gen(function* () {
      const finder = yield* make(undefined)
      expect(yield* finder.read(memory)).toEqual([])
    })
  )
})
