import { ExtractiveAnswerModel, questionType } from "@umo/plugins"
import { describe, expect, it } from "vitest"

const context = (
  index: number,
  content: string,
  timestamp = "2026-01-10T09:00:00.000Z",
  similarity = 0.8
) => ({
  index,
  umo_id: `0000000${index}-0000-7000-8000-000000000000`,
  content,
  summary: content,
  timestamp,
  similarity
})

describe("questionType", () => {
  it.each([
    ["Who painted the lake?", "person"],
    ["Where did Marie Curie work?", "location"],
    ["When is the meeting?", "temporal"],
    ["How many cars were recalled?", "quantity"],
    ["Did Caroline go to the group?", "yes_no"],
    ["List the places I visited", "list"],
    ["What did the committee approve?", "factual"],
    ["Tell me about my garden", "open"]
  ])("%s → %s", (question, type) => {
    expect(questionType(question)).toBe(type)
  })
})

describe("the extractive answer model", () => {
  it("prefers the sentence holding the kind of entity asked for", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "Where did Marie Curie work?",
      contexts: [
        context(1, "Marie Curie loved her work. She worked in Paris for decades."),
        context(2, "Pierre and Marie Curie shared the Nobel Prize.")
      ]
    })
    expect(answer.answer).toBe("Paris: She worked in Paris for decades. [1]")
    expect(answer.citations).toEqual([
      expect.objectContaining({ index: 1, snippet: "She worked in Paris for decades." })
    ])
  })

  it("resolves a relative date against the memory's own time", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "When did I go hiking?",
      contexts: [context(1, "I went hiking yesterday with my brother.", "2023-05-08T13:56:00.000Z")]
    })
    expect(answer.answer).toBe("7 May 2023: I went hiking yesterday with my brother. [1]")
    expect(answer.question_type).toBe("temporal")
    const undated = ExtractiveAnswerModel.answer({
      question: "When did I buy the red bike?",
      contexts: [context(1, "I bought the red bike from a neighbour.", "2024-02-29T09:00:00.000Z")]
    })
    expect(undated.answer).toBe("29 February 2024: I bought the red bike from a neighbour. [1]")
  })

  it("answers no_context when no sentence shares anything with the question", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "Where is the zebra?",
      contexts: [context(1, "Bob likes tea.")]
    })
    expect(answer).toMatchObject({ method: "no_context", citations: [], confidence: 0 })
    expect(ExtractiveAnswerModel.answer({ question: "Anything?", contexts: [] }).method).toBe("no_context")
  })
})
