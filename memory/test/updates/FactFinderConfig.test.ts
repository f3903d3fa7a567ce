import { it } from "@effect/vitest"
import { Embedder, type FactFinderShape, type FoundFact, makeEmbedder } from "@umo/core"
import { Memory } from "@umo/memory"
import { FactFinderLive } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { as, testMemory } from "../support/TestMemory.js"

const FlatEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-flat", dimensions: 4, maxChunkChars: 200 },
    embedBatch: (texts) => Effect.succeed(texts.map(() => [1, 0.2, 0.1, 0.05]))
  })
)

/** A fact finder of a deployment's own: it reads "Wohnort: <Stadt>" (German), which the English rules never read. */
const english = Effect.runSync(FactFinderLive.make(undefined))
const wohnort = (text: string): ReadonlyArray<FoundFact> => {
  const city = /^Wohnort:\s*(\S+)/.exec(text)?.[1]
  return city === undefined
    ? []
    : [{ subject: "self", attribute: "residence", value: city.toLowerCase(), written: city, mode: "set" }]
}
const german: FactFinderShape = { ...english, stated: wohnort, read: (text) => Effect.succeed(wohnort(text)) }

const moveTwice = Effect.gen(function* () {
  const memory = yield* Memory
  const capture = (content: string, timestamp: string) =>
    Effect.map(memory.capture({ content, timestamp }), (r) => r.umo_id)
  const berlin = yield* capture("Wohnort: Berlin", "2025-01-01T00:00:00Z")
  const munich = yield* capture("Wohnort: München", "2025-06-01T00:00:00Z")
  return { berlin: yield* memory.get(berlin), munich }
})

describe("the FactFinder port", () => {
  it.effect("capture decides supersessions by the configured fact finder, not by the rules", () =>
    Effect.gen(function* () {
      const { berlin, munich } = yield* as("finder")(moveTwice)
      expect(berlin.superseded_by).toBe(munich)
    }).pipe(Effect.provide(testMemory(FlatEmbedder, { factFinder: german })))
  )

  it.effect("the default finder reads no such fact, and supersedes nothing", () =>
    Effect.gen(function* () {
      const { berlin } = yield* as("rules")(moveTwice)
      expect(berlin.superseded_by).toBe(null)
    }).pipe(Effect.provide(testMemory(FlatEmbedder)))
  )
})
