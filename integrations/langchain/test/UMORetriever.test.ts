import { Document } from "@langchain/core/documents"
import { RunnableLambda } from "@langchain/core/runnables"
import { UMOClient, ValidationError } from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"
import { UMORetriever } from "../src/index.js"

let server: Awaited<ReturnType<typeof startListening>>
let umo: UMOClient
const ids: Record<string, string> = {}

beforeAll(async () => {
  server = await startListening()
  umo = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
  const captures = {
    lisbon: ["Ana moved to Lisbon in March to work at a design studio.", { userId: "ana", sessionId: "s1" }],
    cat: ["Ana's cat is called Miso.", { userId: "ana" }],
    bob: ["Bob moved to Lisbon too, in April.", { userId: "bob" }]
  } as const
  for (const [name, [text, scope]] of Object.entries(captures))
    ids[name] = (await umo.capture(text, { ...scope, timestamp: "2025-04-20T08:00:00.000Z" })).umoId
})
afterAll(() => server.stop())

describe("UMORetriever", () => {
  it("returns the scope's memories as Documents, best first, with id, score, time and scope", async () => {
    const retriever = new UMORetriever({ memory: umo, scope: { userId: "ana" }, limit: 2 })
    const docs = await retriever.invoke("Where does Ana live now?")
    expect(docs[0]).toBeInstanceOf(Document)
    expect(docs[0]).toMatchObject({
      id: ids.lisbon,
      pageContent: "Ana moved to Lisbon in March to work at a design studio.",
      metadata: {
        umo_id: ids.lisbon,
        timestamp: "2025-04-20T08:00:00.000Z",
        user_id: "ana",
        agent_id: null,
        session_id: "s1",
        times_said: 1,
        source: null
      }
    })
    expect(docs[0]!.metadata.score).toBeGreaterThan(0)
    expect(docs.map((d) => d.metadata.umo_id)).not.toContain(ids.bob)
    expect(docs.length).toBeLessThanOrEqual(2)
  })

  it("narrows to a session when the scope names one, and sees nothing of another user", async () => {
    const session = await new UMORetriever({ memory: umo, scope: { userId: "ana", sessionId: "s1" } }).invoke(
      "Ana's cat"
    )
    expect(session.map((d) => d.id)).toEqual([ids.lisbon])
    const carol = await new UMORetriever({ memory: umo, scope: { userId: "carol" } }).invoke("Lisbon")
    expect(carol).toEqual([])
  })

  it("composes as a Runnable", async () => {
    const retriever = new UMORetriever({ memory: umo, scope: { userId: "ana" }, limit: 1 })
    const context = retriever.pipe(RunnableLambda.from((docs: Array<Document>) => docs[0]?.pageContent ?? ""))
    expect(await context.invoke("What is the cat called?")).toBe("Ana's cat is called Miso.")
  })

  it("passes UMO's refusal on with its detail, and refuses a scope that names no one", async () => {
    const refused = await new UMORetriever({ memory: umo, scope: { userId: "ana" }, limit: 0 })
      .invoke("Lisbon")
      .catch((e) => e)
    expect(refused).toBeInstanceOf(ValidationError)
    expect(refused).toMatchObject({ status: 422, detail: expect.stringContaining("limit") })
    expect(() => new UMORetriever({ memory: umo, scope: {} })).toThrow(/needs a userId/)
  })
})
