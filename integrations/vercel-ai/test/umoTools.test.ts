import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NotFoundError, type Scope, UMOClient, type UMOMemory, ValidationError } from "@umo/client"
import { openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { generateText, stepCountIs } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"
import {
  type AnsweredFromMemories,
  type Forgotten,
  type FoundMemories,
  type Remembered,
  umoTools
} from "../src/index.js"
import { type ScriptedCall, scriptedModel } from "./support/ScriptedModel.js"

/** Runs the scripted model with the tools of `scope`, one step per call and a last one that answers. */
const run = (memory: UMOMemory, scope: { readonly userId: string }, calls: ReadonlyArray<ScriptedCall>) =>
  generateText({
    model: scriptedModel(calls),
    tools: umoTools(memory, scope),
    prompt: "Look after my memories.",
    stopWhen: stepCountIs(calls.length + 1)
  })

type Run = Awaited<ReturnType<typeof run>>

/** The outputs of the run's tool calls, in order. */
const outputs = <T extends ReadonlyArray<unknown>>(result: Run) =>
  result.steps.flatMap((step) => step.toolResults.map((r) => r.output)) as unknown as T

/** The errors the run's tool calls threw, in order. */
const errors = (result: Run) =>
  result.steps.flatMap((step) => step.content.flatMap((part) => (part.type === "tool-error" ? [part] : [])))

const backends: ReadonlyArray<{
  readonly name: string
  readonly open: () => Promise<{ readonly memory: UMOMemory; readonly close: () => Promise<void> }>
}> = [
  {
    name: "a UMO server, through UMOClient",
    open: async () => {
      const server = await startListening()
      return { memory: new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice }), close: server.stop }
    }
  },
  {
    name: "openMemory, in-process",
    open: async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "umo-vercel-ai-"))
      const memory = await openMemory({ dataDir, account: "vercel-ai", embedder: UseLiteEmbedder.layer() })
      return {
        memory,
        close: async () => {
          await memory.close()
          rmSync(dataDir, { recursive: true, force: true })
        }
      }
    }
  }
]

describe.each(backends)("umoTools over $name", ({ open }) => {
  let memory: UMOMemory
  let close: () => Promise<void>
  beforeAll(async () => {
    ;({ memory, close } = await open())
  })
  afterAll(() => close())

  const ana = { userId: "ana" }
  const bob = { userId: "bob" }
  let teaId = ""

  it("remembers in the scope, then finds the memory and answers from it", async () => {
    const result = await run(memory, ana, [
      { tool: "remember", input: () => ({ text: "Ana's favourite tea is jasmine green tea." }) },
      { tool: "searchMemories", input: () => ({ query: "Which tea does Ana like?", limit: 3 }) },
      { tool: "answerFromMemories", input: () => ({ question: "What is Ana's favourite tea?" }) }
    ])
    expect(errors(result)).toEqual([])
    const [remembered, found, answered] = outputs<[Remembered, FoundMemories, AnsweredFromMemories]>(result)
    teaId = remembered.id
    expect(remembered).toMatchObject({ supersedes: [], duplicateOf: null })
    // Stored in the caller's scope, not the model's choice.
    expect(await memory.get(teaId)).toMatchObject({ userId: "ana", agentId: null, sessionId: null })
    expect(found.memories[0]).toMatchObject({
      id: teaId,
      text: "Ana's favourite tea is jasmine green tea.",
      timesSaid: 1
    })
    expect(found.memories[0]!.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(answered.citations.map((c) => c.id)).toContain(teaId)
    expect(answered.answer).toMatch(/jasmine/i)
    expect(result.text).toBe("Done.")
  })

  it("shows another user's scope nothing, and will not forget a memory outside it", async () => {
    const result = await run(memory, bob, [
      { tool: "searchMemories", input: () => ({ query: "Which tea does Ana like?" }) },
      { tool: "answerFromMemories", input: () => ({ question: "What is Ana's favourite tea?" }) },
      { tool: "forgetMemory", input: () => ({ id: teaId }) }
    ])
    const [found, answered] = outputs<[FoundMemories, AnsweredFromMemories]>(result)
    expect(found.memories).toEqual([])
    expect(answered.citations).toEqual([])
    const [refused] = errors(result)
    expect(refused?.toolName).toBe("forgetMemory")
    expect(refused?.error).toBeInstanceOf(NotFoundError)
    expect(refused?.error).toMatchObject({ status: 404, detail: `no memory with id ${teaId}` })
    expect((await memory.get(teaId)).umoId).toBe(teaId)
  })

  it("passes UMO's refusal of a bad input on with its detail, to the caller and to the model", async () => {
    const model = scriptedModel([{ tool: "remember", input: () => ({ text: "   " }) }])
    const result = await generateText({
      model,
      tools: umoTools(memory, ana),
      prompt: "Remember nothing.",
      stopWhen: stepCountIs(2)
    })
    const [refused] = errors(result)
    expect(refused?.error).toBeInstanceOf(ValidationError)
    const { status, detail } = refused!.error as ValidationError
    expect(status).toBe(422)
    expect(detail).toBe("invalid request body: content: must contain a visible character")
    // The model reads the error as the SDK writes it (name and message), UMO's detail in it.
    const told = model.doGenerateCalls[1]!.prompt.findLast((m) => m.role === "tool")
    const output = told?.role === "tool" ? told.content[0] : undefined
    expect(output).toMatchObject({ type: "tool-result", output: { type: "error-text" } })
    expect(output?.type === "tool-result" && output.output).toMatchObject({
      value: expect.stringContaining(`ValidationError: 422: ${detail}`)
    })
  })

  it("forgets a memory of the scope: it is gone from get and from search", async () => {
    const result = await run(memory, ana, [
      { tool: "searchMemories", input: () => ({ query: "Which tea does Ana like?" }) },
      {
        tool: "forgetMemory",
        input: (previous) => ({ id: (previous as FoundMemories).memories[0]!.id })
      },
      { tool: "searchMemories", input: () => ({ query: "Which tea does Ana like?" }) }
    ])
    expect(errors(result)).toEqual([])
    const [, forgotten, after] = outputs<[FoundMemories, Forgotten, FoundMemories]>(result)
    expect(forgotten).toMatchObject({ id: teaId, forgotten: true })
    expect(forgotten.receipt.split(".")).toHaveLength(3)
    expect(after.memories).toEqual([])
    await expect(memory.get(teaId)).rejects.toBeInstanceOf(NotFoundError)
  })

  it("refuses a scope that names no one: it would be every user's memories", () => {
    expect(() => umoTools(memory, {})).toThrow(ValidationError)
    // A misspelt field (plain JavaScript) names no one either.
    expect(() => umoTools(memory, { user_id: "ana" } as Scope)).toThrow(
      /needs a userId, an agentId or a sessionId/
    )
  })
})
