import { asksAboutThePast } from "@umo/plugins/answer"
import { describe, expect, it } from "vitest"

describe("asksAboutThePast", () => {
  it("reads a question about an earlier state of things", () => {
    for (const question of [
      "Where did she live before Lisbon?",
      "What was his old number?",
      "Where did he use to work?",
      "What did Mei used to say was her favourite food?",
      "When was the trip originally planned?",
      "What was Ana's email when she worked at Finlytics?"
    ])
      expect(asksAboutThePast(question), question).toBe(true)
  })

  it('does not take a passive "used to" (what something is for) for the past', () => {
    for (const question of [
      "Which email address should be used to reach Priya?",
      "What phone number is used to book the table?",
      "Where does she live now?"
    ])
      expect(asksAboutThePast(question), question).toBe(false)
  })
})
