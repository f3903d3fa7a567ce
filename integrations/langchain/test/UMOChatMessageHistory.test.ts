import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts"
import { RunnableWithMessageHistory } from "@langchain/core/runnables"
import { FakeListChatModel } from "@langchain/core/utils/testing"
import { UMOClient, ValidationError } from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"
import { UMOChatMessageHistory } from "../src/index.js"

let server: Awaited<ReturnType<typeof startListening>>
let umo: UMOClient
beforeAll(async () => {
  server = await startListening()
  umo = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
})
afterAll(() => server.stop())

const historyOf = (sessionId: string) =>
  new UMOChatMessageHistory({ memory: umo, scope: { userId: "ana", sessionId } })

describe("UMOChatMessageHistory", () => {
  it("captures each turn in the conversation's scope and reads them back in order", async () => {
    const history = historyOf("trip")
    await history.addMessages([
      new SystemMessage("You plan trips."),
      new HumanMessage("I want to go to Porto in June."),
      new AIMessage("Porto in June is lovely. Train or plane?"),
      new HumanMessage("yes"),
      new HumanMessage("yes"),
      new AIMessage({
        content: "Checking the timetable.",
        tool_calls: [{ id: "call-7", name: "timetable", args: { to: "Porto" }, type: "tool_call" }]
      }),
      new ToolMessage({ content: "Trains leave hourly.", tool_call_id: "call-7", name: "timetable" })
    ])
    await history.addUserMessage("Train, please.")
    await history.addAIMessage("Booked the 9:00 train.")
    const messages = await history.getMessages()
    expect(messages.map((m) => [m.type, m.text])).toEqual([
      ["system", "You plan trips."],
      ["human", "I want to go to Porto in June."],
      ["ai", "Porto in June is lovely. Train or plane?"],
      ["human", "yes"],
      ["human", "yes"],
      ["ai", "Checking the timetable."],
      ["tool", "Trains leave hourly."],
      ["human", "Train, please."],
      ["ai", "Booked the 9:00 train."]
    ])
    // The tool result follows its call, as a model provider needs it when the history is replayed.
    expect((messages[5] as AIMessage).tool_calls).toEqual([
      { id: "call-7", name: "timetable", args: { to: "Porto" }, type: "tool_call" }
    ])
    expect(messages[6]).toMatchObject({ tool_call_id: "call-7", name: "timetable" })
    expect((messages[2] as AIMessage).tool_calls).toEqual([])
    // Each turn is a memory of the scope, found by search like any other.
    const [match] = await umo.ask("Where does Ana want to go in June?", {
      userId: "ana",
      sessionId: "trip",
      metadata: { message_type: "human" },
      limit: 1
    })
    expect(match).toMatchObject({
      userId: "ana",
      sessionId: "trip",
      source: "chat",
      content: "I want to go to Porto in June."
    })
    expect(match?.metadata).toEqual({ message_type: "human" })
  })

  it("keeps conversations apart, and clear forgets only its own turns", async () => {
    const other = historyOf("dinner")
    await other.addUserMessage("Book a table for two at eight.")
    expect((await other.getMessages()).map((m) => m.text)).toEqual(["Book a table for two at eight."])
    expect(await historyOf("nobody-here").getMessages()).toEqual([])
    // A memory of the same session captured outside the history is not a turn.
    await umo.capture("Ana prefers window seats.", { userId: "ana", sessionId: "dinner" })
    await other.clear()
    expect(await other.getMessages()).toEqual([])
    expect((await umo.ask("window seats", { userId: "ana", sessionId: "dinner" }))[0]?.content).toBe(
      "Ana prefers window seats."
    )
    expect(await historyOf("trip").getMessages()).toHaveLength(9)
  })

  it("keeps a chain's conversation through RunnableWithMessageHistory, with LangChain's fake chat model", async () => {
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "You are Ana's assistant."],
      new MessagesPlaceholder("history"),
      ["human", "{input}"]
    ])
    const model = new FakeListChatModel({
      responses: ["Nice to meet you, Ana.", "You said your name is Ana."]
    })
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: (sessionId: string) => historyOf(sessionId),
      inputMessagesKey: "input",
      historyMessagesKey: "history"
    })
    const config = { configurable: { sessionId: "chain" } }
    await chain.invoke({ input: "Hi, I'm Ana." }, config)
    await chain.invoke({ input: "What's my name?" }, config)
    const turns = await historyOf("chain").getMessages()
    expect(turns.map((m) => [m.type, m.text])).toEqual([
      ["human", "Hi, I'm Ana."],
      ["ai", "Nice to meet you, Ana."],
      ["human", "What's my name?"],
      ["ai", "You said your name is Ana."]
    ])
  })

  it("passes UMO's refusal of an empty turn on with its detail, and needs a session", async () => {
    const refused = await historyOf("trip")
      .addMessage(new AIMessage({ content: "", tool_calls: [{ id: "c", name: "timetable", args: {} }] }))
      .catch((e) => e)
    expect(refused).toBeInstanceOf(ValidationError)
    expect(refused).toMatchObject({
      status: 422,
      detail: "invalid request body: content: must contain a visible character"
    })
    expect(() => new UMOChatMessageHistory({ memory: umo, scope: { userId: "ana" } })).toThrow(
      /needs a sessionId/
    )
  })
})
