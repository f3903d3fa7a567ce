import { makeDraft } from "@umo/core"
import { entities, findEntities, findTriples } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { findEnrichment } from "../../src/nlp/Enrich.js"
import * as Workers from "../../src/nlp/Workers.js"
import { offloadChars, runNlp } from "../../src/nlp/Workers.js"

const timestamp = "2026-03-10T09:00:00.000Z"
const long = "Maya Lopez met Tom Becker in Lisbon on 4 May 2024. They signed the lease for $2,400. ".repeat(
  60
)

describe("runNlp", () => {
  it("gives a worker thread's result equal to this thread's for a long text", async () => {
    expect(long.length).toBeGreaterThanOrEqual(offloadChars)
    const [found, triples, enrichment] = await Effect.runPromise(
      Effect.all(
        [
          runNlp("entities", findEntities, long, timestamp),
          runNlp("triples", findTriples, long, []),
          runNlp("enrichment", findEnrichment, long, [])
        ],
        { concurrency: "unbounded" }
      )
    )
    expect(found).toEqual(findEntities(long, timestamp))
    expect(triples).toEqual(findTriples(long, []))
    expect(enrichment).toEqual(findEnrichment(long, []))
  })

  it("runs the entities plugin over a long capture (50,000 characters) in a worker", async () => {
    const content = long.repeat(10)
    const draft = await Effect.runPromise(entities().run(makeDraft({ content, source: null, timestamp })))
    expect(draft.entities).toEqual(findEntities(content, timestamp))
  })

  it("sends a burst of short texts to a worker once this turn's budget is spent, with the same results", async () => {
    const texts = Array.from(
      { length: 60 },
      (_, i) => `Maya Lopez (${i}) met Tom Becker in Lisbon on 4 May 2024 and signed the lease for $2,400.`
    )
    expect(texts.every((t) => t.length < offloadChars)).toBe(true)
    const before = Workers.offloadedShort
    // One synchronous stretch, as a batch's captures run: all 60 asked in one turn of the event loop.
    const found = await Effect.runPromise(
      Effect.forEach(texts, (text) => runNlp("entities", findEntities, text, timestamp), {
        concurrency: "unbounded"
      })
    )
    expect(found).toEqual(texts.map((text) => findEntities(text, timestamp)))
    expect(Workers.offloadedShort - before).toBeGreaterThan(0)
    // A single short text after the burst runs here again.
    await new Promise((resolve) => setImmediate(resolve))
    const alone = Workers.offloadedShort
    await Effect.runPromise(runNlp("entities", findEntities, texts[0]!, timestamp))
    expect(Workers.offloadedShort).toBe(alone)
  })
})
