import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { makeMemoryMcpServer, memoryTools } from "@umo/mcp"
import { MemoryAccount, type OpenedMemoryRuntime, openMemoryRuntime } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { Effect, type ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const dataDir = mkdtempSync(join(tmpdir(), "umo-mcp-"))
let opened: OpenedMemoryRuntime
let client: Client

/** An SDK client connected in-process to a server for `account`. */
const connect = async (account: OpenedMemoryRuntime["account"]) => {
  const server = makeMemoryMcpServer((effect) =>
    opened.runtime.runPromiseExit(Effect.provideService(effect, MemoryAccount, account))
  )
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const connected = new Client({ name: "umo-test", version: "1.0.0" })
  await connected.connect(clientSide)
  return connected
}

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult

const structured = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) => {
  const result = await call(name, args)
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
  return result.structuredContent as T
}

beforeAll(async () => {
  opened = await openMemoryRuntime({ dataDir, account: "alice", embedder: UseLiteEmbedder.layer() })
  client = await connect(opened.account)
})

afterAll(async () => {
  await client?.close()
  await opened?.runtime.dispose()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("MCP server of the memory service", () => {
  it("lists every tool with an object input schema, an output schema and hints", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(memoryTools.map((t) => t.name))
    expect(tools.map((t) => t.name)).toEqual([
      "capture_memory",
      "search_memories",
      "answer_question",
      "get_memory",
      "list_memories",
      "forget_memory",
      "memory_history",
      "forget_memories",
      "verify_memory"
    ])
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
      expect(tool.description?.length).toBeGreaterThan(60)
    }
    const capture = tools.find((t) => t.name === "capture_memory")!
    // The limits the service enforces are the ones the model is shown.
    expect(capture.inputSchema.required).toEqual(["content"])
    expect(JSON.stringify(capture.inputSchema.properties?.["content"])).toContain("50000")
    expect(tools.find((t) => t.name === "forget_memory")!.annotations?.destructiveHint).toBe(true)
    expect(tools.find((t) => t.name === "forget_memories")!.annotations?.destructiveHint).toBe(true)
    // Scopes and filters reach an agent through the same schemas as the API's.
    expect(capture.inputSchema.properties).toHaveProperty("user_id")
    expect(capture.inputSchema.properties).toHaveProperty("supersedes")
    expect(tools.find((t) => t.name === "search_memories")!.inputSchema.properties).toHaveProperty("filters")
    expect(tools.find((t) => t.name === "search_memories")!.annotations?.readOnlyHint).toBe(true)
    // A cloud provider's key is not a tool argument: it would sit in the agent's transcript.
    expect(tools.find((t) => t.name === "answer_question")!.inputSchema.properties).not.toHaveProperty(
      "provider_key"
    )
  })

  it("captures, searches, answers with citations, gets, lists, verifies and forgets", async () => {
    const captured = await structured<{ umo_id: string; receipt: string }>("capture_memory", {
      content: "Ana's birthday is on 12 March and she loves orchids.",
      source: "chat",
      timestamp: "2026-03-01T10:00:00Z"
    })
    await structured("capture_memory", { content: "The dentist moved my appointment to Thursday." })
    expect(captured.receipt.split(".")).toHaveLength(3)

    const found = await structured<{ results: Array<{ umo_id: string; content_text: string }> }>(
      "search_memories",
      { query: "When is Ana's birthday?" }
    )
    expect(found.results[0]?.umo_id).toBe(captured.umo_id)

    const answered = await call("answer_question", { question: "When is Ana's birthday?" })
    const answer = answered.structuredContent as { answer: string; citations: Array<{ umo_id: string }> }
    expect(answer.answer).toMatch(/12 March/i)
    expect(answer.citations.map((c) => c.umo_id)).toContain(captured.umo_id)
    expect((answered.content as Array<{ text: string }>)[0]!.text).toContain(captured.umo_id)

    const record = await structured<{ content_text: string; source: string }>("get_memory", {
      umo_id: captured.umo_id
    })
    expect(record.content_text).toBe("Ana's birthday is on 12 March and she loves orchids.")
    expect(record.source).toBe("chat")

    const page = await structured<{ items: Array<{ umo_id: string }>; total_count: number }>(
      "list_memories",
      {
        source: "chat"
      }
    )
    expect(page.items.map((i) => i.umo_id)).toEqual([captured.umo_id])

    const verdict = await structured<{ verdict: string; signature_valid: boolean; explanation: string }>(
      "verify_memory",
      { umo_id: captured.umo_id }
    )
    expect(verdict).toMatchObject({ verdict: "verified", signature_valid: true, chain_intact: true })
    expect(verdict.explanation).toMatch(/^Verified: /)

    const receipt = await structured<{ forgotten: boolean; receipt: string }>("forget_memory", {
      umo_id: captured.umo_id
    })
    expect(receipt.forgotten).toBe(true)
    const gone = await call("get_memory", { umo_id: captured.umo_id })
    expect(gone.isError).toBe(true)
    expect((gone.content as Array<{ text: string }>)[0]!.text).toContain(
      `no memory with id ${captured.umo_id}`
    )
  })

  it("keeps each user's memories apart, follows a supersession and forgets one user's memories", async () => {
    const madrid = await structured<{ umo_id: string }>("capture_memory", {
      content: "I have lived in Madrid for six years.",
      user_id: "maria",
      metadata: { topic: "home" }
    })
    await structured("capture_memory", { content: "I live in Oslo near the harbour.", user_id: "jonas" })
    const lisbon = await structured<{ umo_id: string; supersedes: Array<string> }>("capture_memory", {
      content: "We moved into our new flat in Lisbon this week.",
      user_id: "maria",
      supersedes: [madrid.umo_id]
    })
    expect(lisbon.supersedes).toEqual([madrid.umo_id])

    const found = await structured<{ results: Array<{ user_id: string | null; umo_id: string }> }>(
      "search_memories",
      { query: "Where do I live?", user_id: "maria" }
    )
    expect(found.results.map((r) => r.user_id)).toEqual(found.results.map(() => "maria"))
    expect(found.results.map((r) => r.umo_id)).toEqual([lisbon.umo_id])

    const history = await structured<{ versions: Array<{ umo_id: string; superseded_by: string | null }> }>(
      "memory_history",
      { umo_id: madrid.umo_id }
    )
    expect(history.versions.map((v) => [v.umo_id, v.superseded_by])).toEqual([
      [madrid.umo_id, lisbon.umo_id],
      [lisbon.umo_id, null]
    ])
    const verdict = await structured<{ verdict: string }>("verify_memory", { umo_id: madrid.umo_id })
    expect(verdict.verdict).toBe("verified")

    const refused = await call("forget_memories", {})
    expect(refused.isError).toBe(true)
    expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/user_id, agent_id or session_id/)
    const erased = await structured<{ forgotten: number; umo_ids: Array<string> }>("forget_memories", {
      user_id: "maria"
    })
    expect([...erased.umo_ids].sort()).toEqual([madrid.umo_id, lisbon.umo_id].sort())
    const left = await structured<{ items: Array<{ user_id: string | null }> }>("list_memories", {
      include_superseded: true,
      filters: { user_id: { in: ["maria", "jonas"] } }
    })
    expect(left.items.map((i) => i.user_id)).toEqual(["jonas"])
  })

  it("answers bad arguments with a tool error that names the rule, and the session goes on", async () => {
    const cases: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
      ["capture_memory", {}, /content/],
      ["capture_memory", { content: "   " }, /content: must contain a visible character/],
      ["capture_memory", { content: "x", timestamp: "yesterday" }, /timestamp/],
      ["search_memories", { query: "a", limit: 500 }, /limit/],
      ["list_memories", { limit: "ten" }, /limit/],
      ["get_memory", { umo_id: 42 }, /umo_id: a memory id/],
      ["search_memories", { query: "a", filters: { city: "x" } }, /filters\.city: unknown field/],
      ["capture_memory", { content: "x", metadata: { "bad key": 1 } }, /metadata key/],
      ["verify_memory", { umo_id: "not-an-id" }, /no memory with that id/]
    ]
    for (const [name, args, detail] of cases) {
      const result = await call(name, args)
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(detail)
    }
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/)
    expect((await client.listTools()).tools.length).toBe(memoryTools.length)
  })

  it("calls a memory tampered with in the database tampered, and says what failed", async () => {
    const changes: ReadonlyArray<[string, string, string, RegExp]> = [
      ["memories", "content", "content || ' '", /no longer hashes/],
      ["memories", "summary", "summary || '!'", /no longer hashes/],
      ["memories", "content_hash", "md5(content_hash) || md5(content_hash)", /no longer hashes|signature/],
      ["ledger_entries", "signature", "reverse(signature)", /signature does not verify|chain is broken/]
    ]
    for (const [table, column, set, failure] of changes) {
      const { umo_id } = await structured<{ umo_id: string }>("capture_memory", {
        content: `A memory whose ${table}.${column} is changed behind the service's back.`
      })
      expect((await structured<{ verdict: string }>("verify_memory", { umo_id })).verdict).toBe("verified")
      const runtime = opened.runtime as unknown as ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, never>
      await runtime.runPromise(
        SqlClient.SqlClient.use(
          (sql) => sql`UPDATE ${sql(table)} SET ${sql(column)} = ${sql.unsafe(set)} WHERE umo_id = ${umo_id}`
        )
      )
      const verdict = await structured<{ verdict: string; explanation: string }>("verify_memory", { umo_id })
      expect(verdict.verdict, `${table}.${column}`).toBe("tampered")
      expect(verdict.explanation).toMatch(failure)
    }
  })

  it("exposes memories as resources umo://memories/{id}", async () => {
    const { umo_id } = await structured<{ umo_id: string }>("capture_memory", {
      content: "The Lisbon train leaves at 9:40 from Santa Apolónia."
    })
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["umo://memories/{id}"])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toContain(`umo://memories/${umo_id}`)
    const read = await client.readResource({ uri: `umo://memories/${umo_id}` })
    const content = read.contents[0] as { mimeType: string; text: string }
    expect(content.mimeType).toBe("application/json")
    expect(JSON.parse(content.text)).toMatchObject({
      umo_id,
      content_text: expect.stringContaining("Lisbon")
    })
    await expect(
      client.readResource({ uri: "umo://memories/00000000-0000-0000-0000-000000000000" })
    ).rejects.toThrow(/no memory/)
    await expect(client.readResource({ uri: "https://example.com/x" })).rejects.toThrow(/umo:\/\/memories/)
  })
})
