import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkCitations } from "../../src/answer/Citations.js"

const context = (index: number, similarity = 0.6) => ({
  index,
  umo_id: `0000000${index}-0000-7000-8000-000000000000`,
  content: `memory number ${index}`,
  summary: `memory ${index}`,
  timestamp: "2026-01-10T09:00:00.000Z",
  similarity
})

describe("checkCitations", () => {
  it("keeps markers of retrieved memories and removes invented ones", () => {
    const checked = checkCitations("Warsaw [2] [7], born 1867 [1].", [context(1, 0.8), context(2, 0.4)])
    expect(checked.answer).toBe("Warsaw [2], born 1867 [1].")
    expect(checked.citations.map((c) => c.index)).toEqual([1, 2])
    expect(checked.confidence).toBeCloseTo(0.6, 4)
  })

  it("an answer that cites nothing has no citations and no confidence", () => {
    const checked = checkCitations("I do not know. [9]", [context(1)])
    expect(checked).toMatchObject({ answer: "I do not know.", citations: [], confidence: 0 })
  })

  it("every marker left names a citation, and every citation is a retrieved memory the text cited", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 8 }),
            fc.integer({ min: 0, max: 12 }).map((n) => `[${n}]`)
          )
        ),
        fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { maxLength: 6 }),
        (parts, indexes) => {
          const text = parts.join(" ")
          const contexts = indexes.map((i) => context(i))
          const checked = checkCitations(text, contexts)
          const cited = new Set(checked.citations.map((c) => c.index))
          for (const m of checked.answer.matchAll(/\[(\d+)\]/g)) expect(cited.has(Number(m[1]))).toBe(true)
          for (const c of checked.citations) {
            expect(indexes).toContain(c.index)
            expect(text).toContain(`[${c.index}]`)
          }
        }
      )
    )
  })
})
