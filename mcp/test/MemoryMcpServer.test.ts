import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { AccountStore } from "@umo/core"
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

const call = async (name: string, args: Record<string, unknown> = {}, by: Client = client) =>
  (await by.callTool({ name, arguments: args })) as CallToolResult

const structured = async <T = Record<string, unknown>>(
  name: string,
  args: Record<string, unknown> = {},
  by: Client = client
) => {
  const result = await call(name, args, by)
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
  return result.structuredContent as T
}

/** The text content blocks of a tool result. */
const texts = (result: CallToolResult) => (result.content as Array<{ text: string }>).map((c) => c.text)

/** A client for another account of the same store, made on first use. */
const connectAccount = async (name: string) => {
  const runtime = opened.runtime as unknown as ManagedRuntime.ManagedRuntime<AccountStore, never>
  const account = await runtime.runPromise(
    Effect.flatMap(Effect.service(AccountStore), (accounts) => Effect.orDie(accounts.ensureAccount(name)))
  )
  return connect(account)
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
      "update_memory",
      "list_scopes",
      "forget_memories",
      "verify_memory",
      "export_memories",
      "import_memories"
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
    // An export takes list's selection and a page size, never vectors; an import's text is capped.
    const exporting = tools.find((t) => t.name === "export_memories")!
    expect(Object.keys(exporting.inputSchema.properties ?? {}).sort()).toEqual(
      [
        "after",
        "after_id",
        "agent_id",
        "before",
        "filters",
        "include_superseded",
        "max_memories",
        "metadata",
        "session_id",
        "source",
        "user_id"
      ].sort()
    )
    expect(JSON.stringify(exporting.inputSchema.properties?.["max_memories"])).toContain("1000")
    const importing = tools.find((t) => t.name === "import_memories")!
    expect(importing.inputSchema.required).toEqual(["data"])
    expect(JSON.stringify(importing.inputSchema.properties?.["data"])).toContain("5000000")
    expect(importing.description).toContain("5,000,000 characters")
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

  describe("export_memories and import_memories", () => {
    type ExportPage = {
      lines: Array<{ kind: string; umo_id?: string; user_id?: string | null; memories?: number }>
      memories: number
      complete: boolean
      next_after_id: string | null
    }
    type Summary = {
      format: string
      imported: number
      already_imported: number
      verified: number
      failed: number
      failures: Array<{ line: number; detail: string }>
      complete: boolean
    }
    let carol: Client
    let dave: Client
    const contents = [
      "Ana's birthday is on 12 March and she loves orchids.",
      "The team offsite is in Porto from 3 to 5 June.",
      "Jonas prefers window seats on long flights."
    ]

    beforeAll(async () => {
      carol = await connectAccount("carol")
      dave = await connectAccount("dave")
      await structured("capture_memory", { content: contents[0], user_id: "ana", source: "chat" }, carol)
      await structured(
        "capture_memory",
        { content: contents[1], agent_id: "planner", session_id: "s1" },
        carol
      )
      await structured(
        "capture_memory",
        { content: contents[2], user_id: "jonas", metadata: { topic: "travel" } },
        carol
      )
    })

    afterAll(async () => {
      await Promise.all([carol?.close(), dave?.close()])
    })

    it("exports the account as JSON Lines: the header first, each memory with its scope, the end", async () => {
      const result = await call("export_memories", {}, carol)
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
      const [jsonl, note] = texts(result)
      const lines = jsonl!
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line))
      expect(lines[0]).toMatchObject({ kind: "umo-export", version: 1, account: "carol" })
      expect(lines.at(-1)).toEqual({ kind: "end", memories: 3 })
      const memories = lines.filter((line) => line.kind === "memory")
      expect(memories.map((m) => m.content)).toEqual(contents)
      expect(memories.map((m) => [m.user_id, m.agent_id, m.session_id])).toEqual([
        ["ana", null, null],
        [null, "planner", "s1"],
        ["jonas", null, null]
      ])
      expect(memories[0]).toMatchObject({ source: "chat", entry: expect.any(Object) })
      expect(memories[2]).toMatchObject({ metadata: { topic: "travel" } })
      for (const memory of memories) expect(memory).not.toHaveProperty("embedding")
      expect(note).toMatch(/complete: 3 memories/)
      // The structured result holds the same lines.
      expect(result.structuredContent).toMatchObject({ memories: 3, complete: true, next_after_id: null })
      expect((result.structuredContent as ExportPage).lines).toEqual(lines)

      const narrowed = await structured<ExportPage>("export_memories", { user_id: "jonas" }, carol)
      expect(narrowed.lines.filter((l) => l.kind === "memory").map((l) => l.user_id)).toEqual(["jonas"])
    })

    it("pages with max_memories, and continuing from next_after_id gives every memory once", async () => {
      const seen: Array<string> = []
      let afterId: string | null = null
      let pages = 0
      do {
        const result = await call(
          "export_memories",
          { max_memories: 2, ...(afterId === null ? {} : { after_id: afterId }) },
          carol
        )
        const page = result.structuredContent as ExportPage
        pages++
        expect(page.lines[0]!.kind).toBe("umo-export")
        const ids = page.lines.filter((l) => l.kind === "memory").map((l) => l.umo_id!)
        expect(ids.length).toBeLessThanOrEqual(2)
        expect(page.memories).toBe(ids.length)
        seen.push(...ids)
        if (page.complete) expect(page.lines.at(-1)!.kind).toBe("end")
        else {
          expect(page.lines.at(-1)).toMatchObject({ kind: "memory", umo_id: page.next_after_id })
          expect(texts(result)[1]).toContain(`after_id "${page.next_after_id}"`)
        }
        afterId = page.next_after_id
      } while (afterId !== null && pages < 5)
      expect(pages).toBe(2)
      expect(seen).toHaveLength(3)
      expect(new Set(seen).size).toBe(3)
    })

    it("imports an export into another account, page by page, and nothing twice", async () => {
      const first = texts(await call("export_memories", { max_memories: 2 }, carol))[0]!
      const whole = texts(await call("export_memories", {}, carol))[0]!

      const page = await call("import_memories", { data: first }, dave)
      expect(page.structuredContent).toMatchObject({
        format: "umo",
        imported: 2,
        verified: 2,
        failed: 0,
        complete: false
      })
      expect(texts(page)[0]).toMatch(
        /^Imported 2 memories from a UMO export .*0 failed\. The input has no end line/
      )

      const rest = await structured<Summary>("import_memories", { data: whole }, dave)
      expect(rest).toMatchObject({ imported: 1, already_imported: 2, failed: 0, complete: true })
      const again = await call("import_memories", { data: whole, format: "umo" }, dave)
      expect(again.structuredContent).toMatchObject({ imported: 0, already_imported: 3, failed: 0 })
      expect(texts(again)[0]).toMatch(/Imported 0 memories .*; 3 already imported; 0 failed\./)

      const listed = await structured<{ items: Array<{ user_id: string | null; source: string | null }> }>(
        "list_memories",
        { include_superseded: true },
        dave
      )
      expect(listed.items).toHaveLength(3)
      const exported = await structured<ExportPage>("export_memories", { user_id: "ana" }, dave)
      expect(exported.lines.filter((l) => l.kind === "memory")).toMatchObject([
        { user_id: "ana", source: "chat", content: contents[0], imported_from: { format: "umo" } }
      ])
    })

    it("imports Mem0's get_all JSON and one Mem0 memory a line", async () => {
      const mem0 = {
        results: [
          {
            id: "m-1",
            memory: "Prefers oat milk in coffee",
            user_id: "lee",
            created_at: "2025-02-01T09:00:00Z",
            categories: ["food"]
          },
          { id: "m-2", memory: "Works from Berlin on Mondays", user_id: "lee", metadata: { team: "ops" } },
          { id: "m-3", memory: "" }
        ]
      }
      const result = await call("import_memories", { data: JSON.stringify(mem0), on_error: "skip" }, dave)
      const summary = result.structuredContent as Summary
      expect(summary).toMatchObject({ format: "mem0", imported: 2, failed: 1, complete: true })
      expect(summary.failures[0]?.detail).toMatch(/Mem0 memory/)
      expect(texts(result)[0]).toMatch(
        /Imported 2 memories from a Mem0 export; 0 already imported; 1 failed \(line 1: /
      )

      const lines = [
        { id: "m-2", memory: "Works from Berlin on Mondays", user_id: "lee" },
        { id: "m-4", memory: "Is allergic to peanuts", user_id: "lee" }
      ]
        .map((m) => JSON.stringify(m))
        .join("\n")
      const perLine = await structured<Summary>("import_memories", { data: lines, format: "mem0" }, dave)
      expect(perLine).toMatchObject({ format: "mem0", imported: 1, already_imported: 1, failed: 0 })
      const found = await structured<{ results: Array<{ content_text: string; user_id: string | null }> }>(
        "search_memories",
        { query: "What is Lee allergic to?", user_id: "lee" },
        dave
      )
      expect(found.results[0]).toMatchObject({ content_text: "Is allergic to peanuts", user_id: "lee" })
    })

    it("answers a bad format or bad arguments with a tool error that says why", async () => {
      const cases: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
        ["import_memories", { data: "{}", format: "csv" }, /format/],
        ["import_memories", {}, /data/],
        ["import_memories", { data: "   " }, /data: must hold the JSON of an export/],
        [
          "import_memories",
          { data: "name,memory\nlee,likes tea" },
          /nothing was imported: 2 lines failed \(line 1: /
        ],
        [
          "import_memories",
          { data: '{"id":"m-9","memory":"x"}', format: "umo" },
          /nothing was imported: .*header line/
        ],
        ["import_memories", { data: "x".repeat(5_000_001) }, /data: must be at most 5,000,000 characters/],
        ["export_memories", { max_memories: 0 }, /max_memories/],
        ["export_memories", { max_memories: 1001 }, /max_memories/],
        ["export_memories", { embeddings: true }, /embeddings/],
        ["export_memories", { after_id: "last" }, /after_id: must be a memory id/],
        ["export_memories", { filters: { city: "x" } }, /filters\.city: unknown field/]
      ]
      for (const [name, args, detail] of cases) {
        const result = await call(name, args, dave)
        expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 100)}`).toBe(true)
        expect(texts(result)[0]).toMatch(detail)
      }
      expect((await structured<ExportPage>("export_memories", { max_memories: 1 }, dave)).memories).toBe(1)
    })
  })
})
