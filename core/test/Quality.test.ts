import { type Draft, makeDraft, qualityOf } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const draftOf = (content: string, extra: Partial<Draft> = {}): Draft => ({
  ...makeDraft({ content, source: null, timestamp: "2026-01-01T00:00:00.000Z" }),
  ...extra
})

describe("qualityOf", () => {
  it("scores a rich paragraph clearly above a two-word remark", () => {
    const rich = draftOf(
      "Marie Curie was born in Warsaw in 1867 and worked in Paris, where she discovered polonium and radium with Pierre Curie. She won the Nobel Prize in Physics in 1903.",
      {
        entities: [
          { text: "Marie Curie", type: "PERSON", start: 0, end: 11 },
          { text: "Warsaw", type: "LOCATION", start: 24, end: 30 },
          { text: "1867", type: "DATE", start: 34, end: 38 },
          { text: "Paris", type: "LOCATION", start: 53, end: 58 }
        ],
        svo_triples: [
          { subject: "Marie Curie", verb: "was born in", object: "Warsaw" },
          { subject: "she", verb: "discovered", object: "polonium" },
          { subject: "She", verb: "won", object: "the Nobel Prize" }
        ],
        topics: [
          { name: "marie curie", score: 1 },
          { name: "polonium", score: 0.5 },
          { name: "nobel prize", score: 0.5 }
        ],
        summary: "Marie Curie was born in Warsaw in 1867 and worked in Paris."
      }
    )
    const poor = draftOf("ok lol", { summary: "ok lol" })
    expect(qualityOf(rich).score).toBeGreaterThan(0.8)
    expect(qualityOf(poor).score).toBeLessThan(0.3)
  })

  it("names every factor and weights that sum to 1", () => {
    const { factors } = qualityOf(draftOf("hello"))
    expect(factors.map((f) => f.name)).toEqual([
      "substance",
      "entities",
      "relations",
      "topics",
      "clean_text",
      "summary"
    ])
    expect(factors.reduce((s, f) => s + f.weight, 0)).toBeCloseTo(1, 10)
  })

  it("stays within [0, 1] for any draft (property)", () => {
    const entity = fc.record({
      text: fc.string(),
      type: fc.constantFrom("PERSON", "DATE"),
      start: fc.nat(),
      end: fc.nat()
    })
    const triple = fc.record({ subject: fc.string(), verb: fc.string(), object: fc.string() })
    const topic = fc.record({ name: fc.string(), score: fc.double({ min: 0, max: 1, noNaN: true }) })
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.array(entity, { maxLength: 20 }),
        fc.array(triple, { maxLength: 20 }),
        fc.array(topic, { maxLength: 20 }),
        fc.option(fc.string({ maxLength: 500 })),
        (content, entities, svo_triples, topics, summary) => {
          const { score, factors } = qualityOf(draftOf(content, { entities, svo_triples, topics, summary }))
          expect(score).toBeGreaterThanOrEqual(0)
          expect(score).toBeLessThanOrEqual(1)
          for (const f of factors) expect(f.value >= 0 && f.value <= 1).toBe(true)
        }
      ),
      { numRuns: 300 }
    )
  })
})
