import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  baseScores,
  defaultWeights,
  entityKey,
  entityOverlap,
  type Signals,
  withContext
} from "../../src/recall/Ranking.js"

const now = Date.parse("2026-11-22T00:00:00Z")
const signal = fc.record({
  vector: fc.double({ min: -1, max: 1, noNaN: true }),
  bm25: fc.double({ min: 0, max: 50, noNaN: true }),
  entity: fc.double({ min: 0, max: 1, noNaN: true }),
  time: fc.integer({ min: now - 10 * 365 * 86_400_000, max: now }),
  fact: fc.constantFrom(0, 1)
})
const signalSet = fc.uniqueArray(fc.tuple(fc.uuid(), signal), {
  minLength: 1,
  maxLength: 30,
  selector: ([id]) => id
})
const upper =
  defaultWeights.vector +
  defaultWeights.text +
  defaultWeights.entity +
  defaultWeights.recency +
  defaultWeights.fact

describe("baseScores", () => {
  it("stays within [0, sum of weights] and gives the best BM25 its full text weight", () => {
    fc.assert(
      fc.property(signalSet, (entries) => {
        const signals = new Map<string, Signals>(entries)
        const scores = baseScores(signals, defaultWeights, now)
        const best = Math.max(...entries.map(([, s]) => s.bm25))
        for (const [id, s] of entries) {
          const score = scores.get(id)!
          if (score < 0 || score > upper + 1e-9) return false
          if (best > 0 && s.bm25 === best) {
            const withoutText = baseScores(new Map([[id, { ...s, bm25: 0 }]]), defaultWeights, now).get(id)!
            if (Math.abs(score - withoutText - defaultWeights.text) > 1e-9) return false
          }
        }
        return true
      })
    )
  })

  it("never ranks a memory lower for a stronger signal, all else equal", () => {
    fc.assert(
      fc.property(
        signal,
        fc.constantFrom("vector", "bm25", "entity", "time", "fact"),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (s, key, bump) => {
          const stronger = {
            ...s,
            [key]:
              key === "time"
                ? Math.min(now, s.time + bump * 86_400_000)
                : key === "fact"
                  ? Math.max(s.fact, Math.ceil(bump))
                  : s[key] + bump
          }
          const other = { vector: 0.1, bm25: 60, entity: 0, time: now, fact: 0 }
          const a = baseScores(
            new Map([
              ["a", s],
              ["o", other]
            ]),
            defaultWeights,
            now
          ).get("a")!
          const b = baseScores(
            new Map([
              ["a", stronger],
              ["o", other]
            ]),
            defaultWeights,
            now
          ).get("a")!
          return b >= a - 1e-12
        }
      )
    )
  })

  it("halves the recency signal every half-life", () => {
    const weights = { ...defaultWeights, vector: 0, text: 0, entity: 0, recency: 1, recencyHalfLifeDays: 30 }
    const at = (days: number) =>
      baseScores(
        new Map([["m", { vector: 0, bm25: 0, entity: 0, time: now - days * 86_400_000, fact: 0 }]]),
        weights,
        now
      ).get("m")!
    expect([at(0), at(30), at(60)]).toEqual([1, 0.5, 0.25])
  })
})

describe("withContext", () => {
  it("adds the weighted better neighbour, never lowers a score, and is the identity at weight 0", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.uuid(), fc.double({ min: 0, max: 2, noNaN: true })), {
          minLength: 3,
          maxLength: 20,
          selector: ([id]) => id
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (entries, weight) => {
          const base = new Map(entries)
          const ids = entries.map(([id]) => id)
          // A timeline in array order.
          const neighbours = new Map(
            ids.map((id, i) => [id, { previous: ids[i - 1] ?? null, next: ids[i + 1] ?? null }])
          )
          const scored = withContext(base, neighbours, weight)
          const unchanged = withContext(base, neighbours, 0)
          return ids.every((id, i) => {
            const near = Math.max(0, base.get(ids[i - 1] ?? "") ?? 0, base.get(ids[i + 1] ?? "") ?? 0)
            return (
              Math.abs(scored.get(id)! - (base.get(id)! + weight * near)) < 1e-9 &&
              scored.get(id)! >= base.get(id)! &&
              unchanged.get(id) === base.get(id)
            )
          })
        }
      )
    )
  })
})

describe("entityOverlap", () => {
  it("is the share of query entities the memory names, ignoring case and a possessive", () => {
    const query = new Set(["Caroline's", "LGBTQ"].map(entityKey))
    expect(entityOverlap(query, [{ text: "Caroline" }, { text: "yesterday" }])).toBe(0.5)
    expect(entityOverlap(query, [{ text: "lgbtq" }, { text: "CAROLINE" }])).toBe(1)
    expect(entityOverlap(new Set(), [{ text: "Caroline" }])).toBe(0)
  })
})
