import { Embedder } from "@umo/core"
import { Effect } from "effect"
import { expect } from "vitest"

const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => a.reduce((s, x, i) => s + x * b[i]!, 0)

/**
 * What any real sentence embedder must do: unit vectors of its declared size, the same vector for
 * a text alone or in a padded batch, paraphrases closer than unrelated sentences, and unrelated
 * sentences far apart (a broken int8 graph put every pair above 0.8 while keeping their order).
 */
export const behavesLikeASentenceEmbedder = Effect.gen(function* () {
  const embedder = yield* Embedder
  const texts = [
    "The cat is sleeping on the sofa.",
    "A kitten naps on the couch.",
    "Quarterly revenue rose by eight percent, driven by strong cloud sales in Europe and Asia.",
    "x"
  ]
  const vectors = yield* embedder.embed(texts)
  expect(vectors).toHaveLength(texts.length)
  for (const v of vectors) {
    expect(v).toHaveLength(embedder.model.dimensions)
    expect(Math.hypot(...v)).toBeCloseTo(1, 4)
  }
  const [alone] = yield* embedder.embed([texts[0]!])
  expect(cosine(alone!, vectors[0]!)).toBeGreaterThan(0.9999)
  expect(cosine(vectors[0]!, vectors[1]!)).toBeGreaterThan(cosine(vectors[0]!, vectors[2]!) + 0.2)
  expect(cosine(vectors[0]!, vectors[2]!)).toBeLessThan(0.5)
  expect(yield* embedder.embed([])).toEqual([])
})
