import { AIMessageChunk, type ToolMessage } from "@langchain/core/messages"
import { FakeStreamingChatModel } from "@langchain/core/utils/testing"
import { NotFoundError, type Scope, UMOClient, ValidationError } from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"
import { umoTools } from "../src/index.js"

let server: Awaited<ReturnType<typeof startListening>>
let umo: UMOClient
beforeAll(async () => {
  server = await startListening()
  umo = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
})
afterAll(() => server.stop())

/**
 * One turn of an agent: LangChain's fake chat model, bound to the tools of `scope`, answers with
 * `calls`; each tool call is run as an agent runs it (`tool.invoke(toolCall)`), giving a ToolMessage.
 */
const turn = async (scope: Scope, calls: ReadonlyArray<{ name: string; args: Record<string, unknown> }>) => {
  const tools = umoTools(umo, scope)
  const model = new FakeStreamingChatModel({
    sleep: 0,
    chunks: [
      new AIMessageChunk({
        content: "",
        tool_calls: calls.map((call, i) => ({ ...call, id: `call-${i}`, type: "tool_call" as const }))
      })
    ]
  }).bindTools(tools)
  const message = await model.invoke("Look after my memories.")
  const results: Array<ToolMessage> = []
  for (const call of message.tool_calls ?? []) {
    const tool = tools.find((t) => t.name === call.name)!
    results.push((await tool.invoke(call)) as ToolMessage)
  }
  return results
}

/** What a ToolMessage told the model (the tool's object, as JSON). */
const content = (message: ToolMessage | undefined) => JSON.parse(String(message?.content))

describe("umoTools (LangChain)", () => {
  const ana = { userId: "ana", agentId: "concierge" }
  let id = ""

  it("are four tools, with the names and schemas a model is shown", () => {
    const tools = umoTools(umo, ana)
    expect(tools.map((t) => t.name)).toEqual([
      "remember",
      "search_memories",
      "answer_from_memories",
      "forget_memory"
    ])
    for (const t of tools) expect(t.description.length).toBeGreaterThan(80)
  })

  it("remember stores in the scope; search finds it; answer cites it", async () => {
    const [remembered] = await turn(ana, [
      { name: "remember", args: { text: "Ana is allergic to peanuts.", timestamp: "2025-03-01T12:00:00Z" } }
    ])
    expect(remembered?.status).toBe("success")
    expect(remembered?.tool_call_id).toBe("call-0")
    id = content(remembered).id
    expect(await umo.get(id)).toMatchObject({
      userId: "ana",
      agentId: "concierge",
      sessionId: null,
      timestamp: "2025-03-01T12:00:00.000Z"
    })
    const [found, answered] = await turn(ana, [
      { name: "search_memories", args: { query: "What is Ana allergic to?", limit: 2 } },
      { name: "answer_from_memories", args: { question: "What is Ana allergic to?" } }
    ])
    expect(content(found).memories[0]).toMatchObject({
      id,
      text: "Ana is allergic to peanuts.",
      timestamp: "2025-03-01T12:00:00.000Z",
      timesSaid: 1
    })
    expect(content(answered).citations.map((c: { id: string }) => c.id)).toContain(id)
    expect(content(answered).answer).toMatch(/peanut/i)
  })

  it("another scope sees nothing and cannot forget the memory", async () => {
    const bob = { userId: "bob" }
    const [found, answered] = await turn(bob, [
      { name: "search_memories", args: { query: "What is Ana allergic to?" } },
      { name: "answer_from_memories", args: { question: "What is Ana allergic to?" } }
    ])
    expect(content(found).memories).toEqual([])
    expect(content(answered).citations).toEqual([])
    await expect(turn(bob, [{ name: "forget_memory", args: { id } }])).rejects.toMatchObject({
      name: "NotFoundError",
      status: 404,
      detail: `no memory with id ${id}`
    })
    // The same user through another agent is another scope too.
    await expect(
      turn({ userId: "ana", agentId: "other" }, [{ name: "forget_memory", args: { id } }])
    ).rejects.toBeInstanceOf(NotFoundError)
    expect((await umo.get(id)).umoId).toBe(id)
  })

  it("forget removes it from get and from search", async () => {
    const [forgotten, after] = await turn(ana, [
      { name: "forget_memory", args: { id } },
      { name: "search_memories", args: { query: "What is Ana allergic to?" } }
    ])
    expect(content(forgotten)).toMatchObject({ id, forgotten: true })
    expect(content(after).memories).toEqual([])
    await expect(umo.get(id)).rejects.toBeInstanceOf(NotFoundError)
  })

  it("passes UMO's refusal of a bad input on, with its detail", async () => {
    const refused = await turn(ana, [{ name: "remember", args: { text: " \n " } }]).catch((e) => e)
    expect(refused).toBeInstanceOf(ValidationError)
    expect(refused).toMatchObject({
      status: 422,
      detail: "invalid request body: content: must contain a visible character"
    })
    const tooMany = await turn(ana, [{ name: "search_memories", args: { query: "Ana", limit: 500 } }]).catch(
      (e) => e
    )
    expect(tooMany).toBeInstanceOf(ValidationError)
    expect(tooMany.detail).toMatch(/limit/)
  })

  it("refuses a scope that names no one", () => {
    expect(() => umoTools(umo, {})).toThrow(/needs a userId, an agentId or a sessionId/)
  })
})
