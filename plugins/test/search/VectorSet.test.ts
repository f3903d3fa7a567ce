import { cosineSimilarity } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { graphFrom, queryOf, VectorSet } from "../../src/search/VectorSet.js"

const dims = 32

/** Vectors around a few centres, as embeddings of related texts cluster. */
const clustered = (count: number, seed: number) => {
  let state = seed
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32 - 0.5
  }
  const centres = Array.from({ length: 40 }, () => Array.from({ length: dims }, random))
  return Array.from({ length: count }, (_, i) => centres[i % centres.length]!.map((x) => x + 0.6 * random()))
}

/** The `k` nearest by brute force, best first. */
const bruteForce = (vectors: ReadonlyArray<ReadonlyArray<number>>, query: ReadonlyArray<number>, k: number) =>
  vectors
    .map((v, i) => ({ i, s: cosineSimilarity(v, query) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.i)

const best = (near: ReadonlyArray<{ chunk: number; similarity: number }>, k: number) =>
  [...near]
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k)
    .map((n) => n.chunk)

describe("VectorSet", () => {
  it("scans exactly, here or through usearch's exact search, and leaves removed chunks out (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_200 }),
        fc.integer({ min: 1, max: 40 }),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 50 }),
        (count, k, seed, removals) => {
          const vectors = clustered(count, seed)
          const set = new VectorSet(dims, 8)
          for (const [i, v] of vectors.entries()) set.add(i, [v])
          const removed = new Set(removals.map((r) => r % count))
          set.remove([...removed])
          const query = clustered(1, seed + 1)[0]!
          const q = queryOf(query)
          const live = vectors.map((v, i) => ({ v, i })).filter(({ i }) => !removed.has(i))
          const expected = bruteForce(
            live.map(({ v }) => v),
            query,
            k
          ).map((j) => live[j]!.i)
          const scanned = set.scan(q.vector, q.norm, k)
          expect(scanned.every((n) => !removed.has(n.chunk))).toBe(true)
          // The same chunks; similarities as computed here (float32 vectors, double sums).
          expect(best(scanned, k).sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b))
          for (const n of scanned)
            expect(n.similarity).toBeCloseTo(cosineSimilarity(vectors[n.chunk]!, query), 5)
          // A subset is scanned among its own chunks only.
          const some = live.filter(({ i }) => i % 3 === 0).map(({ i }) => i)
          const inSome = set.scan(q.vector, q.norm, k, some)
          expect(inSome.every((n) => some.includes(n.chunk))).toBe(true)
          expect(best(inSome, k).sort((a, b) => a - b)).toEqual(
            bruteForce(
              some.map((i) => vectors[i]!),
              query,
              k
            )
              .map((j) => some[j]!)
              .sort((a, b) => a - b)
          )
        }
      ),
      { numRuns: 40 }
    )
  })

  it("scans a subset too large to copy apart at once part by part, and gives the subset's nearest", () => {
    const vectors = clustered(10_000, 3)
    const set = new VectorSet(dims)
    for (const [i, v] of vectors.entries()) set.add(i, [v])
    set.remove([1, 2, 3])
    const subset = vectors.map((_, i) => i).filter((i) => i % 10 !== 0 && i > 3)
    for (const query of clustered(5, 77)) {
      const q = queryOf(query)
      const near = set.scan(q.vector, q.norm, 20, subset)
      expect(near.every((n) => n.chunk % 10 !== 0 && n.chunk > 3)).toBe(true)
      expect(best(near, 20).sort((a, b) => a - b)).toEqual(
        bruteForce(
          subset.map((i) => vectors[i]!),
          query,
          20
        )
          .map((j) => subset[j]!)
          .sort((a, b) => a - b)
      )
    }
  })

  it("finds through its graph, once built, nearly all of the exact nearest, and never a removed chunk", () => {
    const count = graphFrom + 1_000
    const vectors = clustered(count, 7)
    const set = new VectorSet(dims)
    for (const [i, v] of vectors.entries()) set.add(i, [v])
    expect(set.graphReady).toBe(false)
    set.buildAll()
    expect(set.graphReady).toBe(true)
    const removed = Array.from({ length: 300 }, (_, i) => i * 7)
    set.remove(removed)
    // Added after the build: found too (scanned until the graph holds them).
    const late = clustered(50, 99)
    for (const [i, v] of late.entries()) set.add(count + i, [v])
    const all = [...vectors, ...late]
    const live = all.map((v, i) => ({ v, i })).filter(({ i }) => !removed.includes(i))
    let found = 0
    const queries = clustered(100, 1234)
    for (const query of queries) {
      const q = queryOf(query)
      const near = set.nearest(q.vector, q.norm, 10)
      expect(near.some((n) => removed.includes(n.chunk))).toBe(false)
      const exact = new Set(
        bruteForce(
          live.map(({ v }) => v),
          query,
          10
        ).map((j) => live[j]!.i)
      )
      found += best(near, 10).filter((chunk) => exact.has(chunk)).length
    }
    expect(found / (10 * queries.length)).toBeGreaterThan(0.95)
  })
})
