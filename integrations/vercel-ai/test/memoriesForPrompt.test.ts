import { UMOClient, ValidationError } from "@umo/client"
import { generateText } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"
import { memoriesForPrompt } from "../src/index.js"
import { scriptedModel } from "./support/ScriptedModel.js"

let server: Awaited<ReturnType<typeof startListening>>
let umo: UMOClient
const ids: Record<string, string> = {}

beforeAll(async () => {
  server = await startListening()
  umo = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
  const captures = {
    trip: ["Ana is flying to Lisbon on 14 June for her sister's wedding.", "ana", "2025-05-02T09:30:00.000Z"],
    dog: ["Ana's dog Biscuit is allergic to chicken.", "ana", "2025-04-11T18:00:00.000Z"],
    bob: ["Bob is flying to Lisbon in June as well.", "bob", "2025-05-03T10:00:00.000Z"]
  } as const
  for (const [name, [text, userId, timestamp]] of Object.entries(captures))
    ids[name] = (await umo.capture(text, { userId, timestamp })).umoId
})
afterAll(() => server.stop())

describe("memoriesForPrompt", () => {
  it("lists the scope's relevant memories, best first, each with its id and time", async () => {
    const block = await memoriesForPrompt(umo, "When is Ana going to Lisbon?", { userId: "ana" })
    const lines = block.split("\n")
    expect(lines[0]).toBe("What you remember about the user (most relevant first):")
    expect(lines[1]).toBe(
      `- [${ids.trip}] (2025-05-02T09:30:00.000Z) Ana is flying to Lisbon on 14 June for her sister's wedding.`
    )
    expect(block).not.toContain(ids.bob!)
    expect(block).not.toContain("Bob")
  })

  it("takes a limit and a heading", async () => {
    const block = await memoriesForPrompt(
      umo,
      "Ana",
      { userId: "ana" },
      { limit: 1, heading: "Known facts:" }
    )
    expect(block.split("\n")).toHaveLength(2)
    expect(block.startsWith("Known facts:\n- [")).toBe(true)
  })

  it("is empty for a scope with no memories, so a prompt can leave it out", async () => {
    expect(await memoriesForPrompt(umo, "When is Ana going to Lisbon?", { userId: "carol" })).toBe("")
  })

  it("goes into the system prompt the model is given", async () => {
    const model = scriptedModel([])
    const system = await memoriesForPrompt(umo, "What can Biscuit eat?", { userId: "ana" })
    await generateText({ model, system, prompt: "What can Biscuit eat?" })
    const [first] = model.doGenerateCalls[0]!.prompt
    expect(first).toMatchObject({ role: "system" })
    expect(first?.content).toContain(`[${ids.dog}] (2025-04-11T18:00:00.000Z) Ana's dog Biscuit is allergic`)
  })

  it("passes UMO's refusal on with its detail, and refuses a scope that names no one", async () => {
    const refused = await memoriesForPrompt(umo, "Ana", { userId: "ana" }, { limit: 500 }).catch((e) => e)
    expect(refused).toBeInstanceOf(ValidationError)
    expect(refused).toMatchObject({ status: 422, detail: expect.stringContaining("limit") })
    await expect(memoriesForPrompt(umo, "Ana", {})).rejects.toThrow(
      /needs a userId, an agentId or a sessionId/
    )
  })
})
