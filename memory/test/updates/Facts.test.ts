import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { factFinder } from "../../src/updates/Facts.js"

/** A clause no rule reads, so each capture of it asks the slot sense. */
const memory = { content: "First standup done at Zentrix.", user_id: "u", agent_id: null }

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

describe("factFinder", () => {
  it.live("makes the slot sense once for captures that arrive together, and keeps it", () =>
    Effect.gen(function* () {
      const { calls, embed } = countingEmbed()
      const factsOf = yield* factFinder(embed)
      yield* Effect.forEach(
        Array.from({ length: 16 }, () => memory),
        factsOf,
        { concurrency: "unbounded" }
      )
      yield* factsOf(memory)
      expect(calls.examples).toBe(1)
    })
  )

  it.live(
    "states the rules' facts when the sense cannot be made, and makes it again on the next capture",
    () =>
      Effect.gen(function* () {
        const { calls, embed } = countingEmbed(1)
        const factsOf = yield* factFinder(embed)
        const moved = { ...memory, content: "I moved to Lisbon last month." }
        const first = yield* factsOf(moved)
        expect(first.map((f) => f.value)).toEqual(["lisbon"])
        yield* factsOf(moved)
        yield* factsOf(moved)
        expect(calls.examples).toBe(2)
      })
  )

  it.live("never embeds when the sense is off", () =>
    Effect.gen(function* () {
      const factsOf = yield* factFinder(undefined)
      expect(yield* factsOf(memory)).toEqual([])
    })
  )
})
