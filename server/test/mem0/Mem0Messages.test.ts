import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { textMessages } from "../../src/mem0/Mem0Messages.js"

const read = (messages: unknown) => Result.getOrThrow(textMessages(messages))
const refusal = (messages: unknown) => {
  const result = textMessages(messages)
  if (Result.isSuccess(result)) throw new Error("accepted")
  return result.failure.detail
}

describe("what add remembers of its messages", () => {
  it("takes a string, one message or a list, in order, with their roles", () => {
    expect(read("I like tea.")).toEqual([{ index: 0, role: "user", content: "I like tea." }])
    expect(read({ role: "assistant", content: "Noted." })).toEqual([
      { index: 0, role: "assistant", content: "Noted." }
    ])
    expect(
      read([
        { role: "system", content: "Be brief." },
        { role: "user", content: "I moved." },
        { role: "assistant", content: "   " },
        {
          role: "assistant",
          content: [
            { type: "text", text: "To" },
            { type: "text", text: "where?" }
          ]
        }
      ])
    ).toEqual([
      { index: 1, role: "user", content: "I moved." },
      { index: 3, role: "assistant", content: "To\nwhere?" }
    ])
  })

  it("refuses what it cannot remember, naming where", () => {
    expect(refusal(undefined)).toMatch(/^invalid request body: messages: is required/)
    expect(refusal([{ role: "system", content: "Be brief." }])).toMatch(/messages: holds no message/)
    expect(refusal([{ role: "tool", content: "x" }])).toMatch(
      /messages\.0\.role: must be user, assistant or system/
    )
    expect(
      refusal([{ role: "user", content: { type: "image_url", image_url: { url: "https://x/y.png" } } }])
    ).toBe(
      "not supported by UMO's Mem0 API: messages.0.content.type: image_url (UMO's Mem0 API remembers text messages)"
    )
    expect(refusal([{ role: "user", content: "x", name: "ana" }])).toBe(
      "not supported by UMO's Mem0 API: messages.0.name"
    )
    expect(refusal(Array.from({ length: 101 }, () => ({ role: "user", content: "x" })))).toMatch(
      /at most 100 messages/
    )
  })
})
