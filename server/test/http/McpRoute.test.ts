import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { AccountStore, sha256Hex } from "@umo/core"
import { memoryTools } from "@umo/mcp"
import { type Context, Effect } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, TestListeningServer, type TestServerOptions } from "../support/TestServer.js"

/** The server on a real socket, and its account store (to add and revoke keys). */
const listen = async (options: TestServerOptions = {}) => {
  const { promise, resolve } = Promise.withResolvers<{
    baseUrl: string
    services: Context.Context<AccountStore>
  }>()
  const controller = new AbortController()
  const running = Effect.runPromise(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      resolve({
        baseUrl: HttpServer.formatAddress(server.address),
        services: yield* Effect.context<AccountStore>()
      })
      return yield* Effect.never
    }).pipe(Effect.provide(TestListeningServer(options))),
    { signal: controller.signal }
  ).catch(() => {})
  const { baseUrl, services } = await promise
  return {
    baseUrl,
    accounts: <A>(f: (accounts: AccountStore["Service"]) => Effect.Effect<A, unknown>) =>
      Effect.runPromise(Effect.provide(AccountStore.use(f), services)),
    stop: async () => {
      controller.abort()
      await running
    }
  }
}

let server: Awaited<ReturnType<typeof listen>>

/** An SDK client session over Streamable HTTP with `key` as its bearer key. */
const connect = async (key: string | undefined, baseUrl = server.baseUrl) => {
  const client = new Client({ name: "umo-http-test", version: "1.0.0" })
  const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } })
  )
  return client
}

const structured = async <T>(client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
  return result.structuredContent as T
}

beforeAll(async () => {
  server = await listen()
})
afterAll(() => server?.stop())

describe("POST /mcp (Streamable HTTP)", () => {
  it("lists the tools and captures, searches, answers and forgets for the key's account", async () => {
    const alice = await connect(keys.alice)
    expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(memoryTools.map((t) => t.name))
    const { umo_id } = await structured<{ umo_id: string }>(alice, "capture_memory", {
      content: "Our team offsite is in Porto on 14 May 2026.",
      source: "calendar"
    })
    const found = await structured<{ results: Array<{ umo_id: string }> }>(alice, "search_memories", {
      query: "Where is the offsite?"
    })
    expect(found.results[0]?.umo_id).toBe(umo_id)
    const answer = await structured<{ answer: string; citations: Array<{ umo_id: string }> }>(
      alice,
      "answer_question",
      { question: "Where is the team offsite?" }
    )
    expect(answer.answer).toContain("Porto")
    expect(answer.citations[0]?.umo_id).toBe(umo_id)
    const verdict = await structured<{ verdict: string }>(alice, "verify_memory", { umo_id })
    expect(verdict.verdict).toBe("verified")
    const receipt = await structured<{ forgotten: boolean }>(alice, "forget_memory", { umo_id })
    expect(receipt.forgotten).toBe(true)
    const again = (await alice.callTool({ name: "get_memory", arguments: { umo_id } })) as CallToolResult
    expect(again.isError).toBe(true)
    await alice.close()
  })

  it("keeps each key to its own account's memories", async () => {
    const alice = await connect(keys.alice)
    const bob = await connect(keys.bob)
    const { umo_id } = await structured<{ umo_id: string }>(alice, "capture_memory", {
      content: "Alice's locker code is 4471."
    })
    const seen = await structured<{ results: Array<{ umo_id: string }> }>(bob, "search_memories", {
      query: "locker code"
    })
    expect(seen.results.map((r) => r.umo_id)).not.toContain(umo_id)
    for (const name of ["get_memory", "verify_memory", "forget_memory"]) {
      const result = (await bob.callTool({ name, arguments: { umo_id } })) as CallToolResult
      expect(result.isError, name).toBe(true)
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe(`no memory with id ${umo_id}`)
    }
    await expect(bob.readResource({ uri: `umo://memories/${umo_id}` })).rejects.toThrow(/no memory/)
    const listed = await bob.listResources()
    expect(listed.resources.map((r) => r.uri)).not.toContain(`umo://memories/${umo_id}`)
    // Bob's forget did nothing: Alice still has it.
    expect((await structured<{ umo_id: string }>(alice, "get_memory", { umo_id })).umo_id).toBe(umo_id)
    await Promise.all([alice.close(), bob.close()])
  })

  it("answers a bad argument with a tool error, and the session goes on", async () => {
    const alice = await connect(keys.alice)
    const result = (await alice.callTool({
      name: "search_memories",
      arguments: { query: "x".repeat(2_001) }
    })) as CallToolResult
    expect(result.isError).toBe(true)
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
      /query: must be at most 2,000 characters/
    )
    expect((await alice.listTools()).tools.length).toBe(memoryTools.length)
    await alice.close()
  })

  it("refuses a missing, unknown or revoked key with 401 and a {detail}", async () => {
    await expect(connect(undefined)).rejects.toThrow(/401|missing API key/)
    await expect(connect("umo_not-a-key-000000000000000000000000000")).rejects.toThrow(
      /401|invalid or revoked/
    )

    const key = `umo_mcp-revoke-me-${"0".repeat(22)}`
    await server.accounts((accounts) =>
      Effect.flatMap(accounts.ensureAccount("carol"), ({ account_id }) =>
        accounts.addKey(account_id, "mcp_revoke", sha256Hex(key))
      )
    )
    const carol = await connect(key)
    expect((await carol.listTools()).tools.length).toBe(memoryTools.length)
    await server.accounts((accounts) => accounts.revokeKey("mcp_revoke"))
    await expect(carol.listTools()).rejects.toThrow(/401|invalid or revoked/)

    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(response.status).toBe(401)
    expect(response.headers.get("www-authenticate")).toBe("Bearer")
    expect(await response.json()).toEqual({ detail: "missing API key: send Authorization: Bearer <API_KEY>" })
  })

  it("answers GET and DELETE with 405: no event stream, no session", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${server.baseUrl}/mcp`, {
        method,
        headers: { authorization: `Bearer ${keys.alice}`, accept: "text/event-stream" }
      })
      expect(response.status).toBe(405)
      expect(response.headers.get("allow")).toBe("POST")
      expect(((await response.json()) as { detail: string }).detail).toMatch(/POST only/)
    }
  })
})

describe("POST /mcp rate limits", () => {
  let limited: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    limited = await listen({ ratePerMinute: 6 })
  })
  afterAll(() => limited?.stop())

  it("applies the key's rate limit, as for the API: 429 with Retry-After", async () => {
    const statuses: Array<number> = []
    let retryAfter: string | null = null
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${limited.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${keys.alice}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream"
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      })
      statuses.push(response.status)
      if (response.status === 429) retryAfter = response.headers.get("retry-after")
    }
    expect(statuses.slice(0, 6).every((s) => s === 200)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
    expect(Number(retryAfter)).toBeGreaterThan(0)
  })
})
