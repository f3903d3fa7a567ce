import { makeDraft } from "@umo/core"
import { entities, findEntities, findTriples } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { findEnrichment } from "../../src/nlp/Enrich.js"
import { offloadChars, runNlp, sent } from "../../src/nlp/Workers.js"

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

  it("answers short texts asked at once together, on the workers past a few thousand characters, with the same results", async () => {
    const texts = Array.from(
      { length: 60 },
      (_, i) => `Maya Lopez (${i}) met Tom Becker in Lisbon on 4 May 2024 and signed the lease for $2,400.`
    )
    expect(texts.every((t) => t.length < offloadChars)).toBe(true)
    const before = { ...sent }
    // Asked at once, as a batch's captures reach a stage: one batch of 60 calls.
    const found = await Effect.runPromise(
      Effect.forEach(texts, (text) => runNlp("entities", findEntities, text, timestamp), {
        concurrency: "unbounded"
      })
    )
    expect(found).toEqual(texts.map((text) => findEntities(text, timestamp)))
    expect(sent.calls - before.calls).toBe(60)
    expect(sent.messages - before.messages).toBeLessThanOrEqual(2)
    // A single short text runs here.
    const alone = { ...sent }
    await Effect.runPromise(runNlp("entities", findEntities, texts[0]!, timestamp))
    expect(sent).toEqual(alone)
  })

  it("fails only the call whose task threw, and the others of its batch succeed", async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `Note ${i}: Maya met Tom in Lisbon on 4 May 2024.`)
    const results = await Effect.runPromise(
      Effect.forEach(
        texts,
        (text, i) =>
          Effect.result(
            // An argument the task cannot read (not an array of sentences) for one call of the batch.
            i === 7
              ? runNlp("triples", findTriples, text, 42 as unknown as [])
              : runNlp("triples", findTriples, text, [])
          ),
        { concurrency: "unbounded" }
      )
    )
    expect(results.filter((r) => r._tag === "Failure")).toHaveLength(1)
    expect(results[7]!._tag).toBe("Failure")
  })
})
