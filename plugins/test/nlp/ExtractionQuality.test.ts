import { findEntities, findTriples, normalizeText } from "@umo/plugins"
import { describe, expect, it } from "vitest"
import { labelledSentences } from "./labelled-sentences.js"

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/^(?:the|a|an)\s+/, "")
    .replace(/\s+/g, " ")
    .trim()

// A subject or object matches when one names the other with extra words around it
// ("Dr. Alice Wong" / "Alice Wong"); verbs must match exactly.
const sameArgument = (a: string, b: string) => {
  const [x, y] = [` ${norm(a)} `, ` ${norm(b)} `]
  return x.includes(y) || y.includes(x)
}

interface Score {
  truePositives: number
  predicted: number
  expected: number
}

const tally = <P, G>(
  predicted: ReadonlyArray<P>,
  gold: ReadonlyArray<G>,
  matches: (p: P, g: G) => boolean
): Score => {
  const unmatched = [...gold]
  let truePositives = 0
  for (const p of predicted) {
    const at = unmatched.findIndex((g) => matches(p, g))
    if (at >= 0) {
      truePositives++
      unmatched.splice(at, 1)
    }
  }
  return { truePositives, predicted: predicted.length, expected: gold.length }
}

const sum = (scores: ReadonlyArray<Score>): Score =>
  scores.reduce(
    (a, b) => ({
      truePositives: a.truePositives + b.truePositives,
      predicted: a.predicted + b.predicted,
      expected: a.expected + b.expected
    }),
    { truePositives: 0, predicted: 0, expected: 0 }
  )

const precision = (s: Score) => (s.predicted === 0 ? 1 : s.truePositives / s.predicted)
const recall = (s: Score) => (s.expected === 0 ? 1 : s.truePositives / s.expected)
const pct = (x: number) => `${(100 * x).toFixed(1)}%`

describe("extraction quality on the hand-labelled set", () => {
  const results = labelledSentences.map((sentence) => {
    const text = normalizeText(sentence.text)
    const entities = findEntities(text, "2026-01-01T00:00:00.000Z")
    const triples = findTriples(text, entities)
    return {
      entities: tally(
        entities,
        sentence.entities,
        (p, [t, type]) => p.type === type && norm(p.text) === norm(t)
      ),
      triples: tally(
        triples,
        sentence.triples,
        (p, [s, v, o]) => norm(p.verb) === norm(v) && sameArgument(p.subject, s) && sameArgument(p.object, o)
      )
    }
  })
  const entities = sum(results.map((r) => r.entities))
  const triples = sum(results.map((r) => r.triples))

  it("has at least 40 labelled sentences", () => {
    expect(labelledSentences.length).toBeGreaterThanOrEqual(40)
  })

  it("reaches its precision and recall floors", () => {
    console.log(
      [
        `extraction quality over ${labelledSentences.length} sentences:`,
        `  entities: precision ${pct(precision(entities))}, recall ${pct(recall(entities))} (${entities.truePositives} of ${entities.predicted} found, ${entities.expected} labelled)`,
        `  triples:  precision ${pct(precision(triples))}, recall ${pct(recall(triples))} (${triples.truePositives} of ${triples.predicted} found, ${triples.expected} labelled)`
      ].join("\n")
    )
    expect(precision(entities)).toBeGreaterThanOrEqual(0.9)
    expect(recall(entities)).toBeGreaterThanOrEqual(0.85)
    expect(precision(triples)).toBeGreaterThanOrEqual(0.9)
    expect(recall(triples)).toBeGreaterThanOrEqual(0.85)
  })
})
