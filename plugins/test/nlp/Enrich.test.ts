import { findTone, findTopics, splitSentences, summarize } from "@umo/plugins"
import { describe, expect, it } from "vitest"

describe("findTopics", () => {
  it("ranks the salient noun phrases, strongest first with score 1", () => {
    const topics = findTopics(
      "The garden needs water. I planted tomatoes in the garden and the tomatoes need sun. The garden is my favourite place."
    )
    expect(topics[0]).toEqual({ name: "garden", score: 1 })
    expect(topics.map((t) => t.name)).toContain("tomato")
    for (const t of topics) expect(t.score).toBeGreaterThan(0)
  })

  it("finds nothing to talk about in filler", () => {
    expect(findTopics("ok lol")).toEqual([])
  })
})

describe("findTone", () => {
  it("labels clearly positive, negative and neutral text", () => {
    expect(findTone("I love this wonderful, happy day!").label).toBe("positive")
    expect(findTone("This is a terrible, awful, sad failure.").label).toBe("negative")
    expect(findTone("The train leaves from platform four.").label).toBe("neutral")
  })

  it("keeps the score within [-1, 1]", () => {
    const { score } = findTone("great great great great great amazing superb excellent")
    expect(score).toBeLessThanOrEqual(1)
    expect(score).toBeGreaterThan(0)
  })
})

describe("summarize", () => {
  const draftOf = (content: string) => ({ content, sentences: splitSentences(content) })

  it("returns a short text whole", () => {
    expect(summarize(draftOf("Ada wrote the first program."))).toBe("Ada wrote the first program.")
  })

  it("picks the central sentences of a longer text, in order, within the length limit", () => {
    const text = [
      "The new library opened downtown on Monday.",
      "The library has three floors of books and a cafe.",
      "Parking nearby is limited.",
      "Library staff expect thousands of visitors to the library in its first week.",
      "The weather was sunny.",
      "Children's books fill the library's top floor.",
      "A bus stops outside."
    ].join(" ")
    const summary = summarize(draftOf(text), 200)
    expect(summary.startsWith("The new library opened downtown on Monday.")).toBe(true)
    expect(summary.length).toBeLessThanOrEqual(200)
    expect(summary).not.toContain("weather")
  })
})
