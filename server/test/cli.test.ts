import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { AccountStore, Ledger, sha256Hex } from "@umo/core"
import { Database, SigningKey, SqlAccountStore, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { Effect, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const dataDir = mkdtempSync(join(tmpdir(), "umo-cli-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const umo = async (...args: Array<string>) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", ...args],
    {
      env: { ...process.env, UMO_DATA_DIR: dataDir, DATABASE_URL: "" }
    }
  )
  return stdout
}

const lookUp = (key: string) =>
  Effect.runPromise(
    Effect.flatMap(AccountStore, (accounts) => accounts.findByKeyHash(sha256Hex(key))).pipe(
      Effect.provide(
        SqlAccountStore.layer.pipe(Layer.provide(Database.pglite({ dataDir: join(dataDir, "pglite") })))
      )
    )
  )

describe("npm run umo -- keys", () => {
  it("creates a key, lists it by id only, and revokes it", async () => {
    const created = await umo("keys", "create", "--account", "acme")
    const key = created.match(/umo_[0-9A-Za-z]{40}/)?.[0]
    expect(key).toBeDefined()
    const found = await lookUp(key!)
    expect(Option.getOrThrow(found).account.name).toBe("acme")

    const listed = await umo("keys", "list")
    const keyId = key!.slice(0, 12)
    expect(listed).toContain(keyId)
    expect(listed).toContain("acme")
    expect(listed).not.toContain(key!)

    expect(await umo("keys", "revoke", keyId)).toContain(`Revoked ${keyId}`)
    expect(Option.isNone(await lookUp(key!))).toBe(true)
    await expect(umo("keys", "revoke", keyId)).rejects.toThrow(/no active key/)
  }, 120_000)
})

/** The key ring as a server on the data directory sees it (registering its key when new). */
const signingKeys = () =>
  Effect.runPromise(
    Effect.flatMap(Ledger, (ledger) => ledger.signingKeys).pipe(
      Effect.provide(
        StorageStack.layer({
          database: Database.pglite({ dataDir: join(dataDir, "pglite") }),
          signingKey: SigningKey.layer({ dataDir }),
          embedder: UseLiteEmbedder.layer()
        })
      )
    )
  )

describe("npm run umo -- signing-key", () => {
  it("rotates the data directory's key: the new one replaces it and signs, both are listed", async () => {
    const before = await signingKeys()
    expect(before.keys).toHaveLength(1)
    const old = readFileSync(join(dataDir, "signing-key.pem"), "utf8")
    const rotated = await umo("signing-key", "rotate")
    expect(rotated).toContain(`${before.keys[0]!.kid} (retired)`)
    expect(readFileSync(join(dataDir, "signing-key.pem"), "utf8")).not.toBe(old)
    // The retired private key is gone from the directory: no copy of it is left to endorse a key.
    for (const file of readdirSync(dataDir).filter((f) => f.endsWith(".pem")))
      expect(readFileSync(join(dataDir, file), "utf8")).not.toBe(old)
    const after = await signingKeys()
    expect(after.keys.map((k) => k.kid)).toEqual([expect.any(String), before.keys[0]!.kid])
    expect(after.rotations).toHaveLength(2)
    const listed = await umo("signing-key", "list")
    expect(listed).toMatch(new RegExp(`1 +${before.keys[0]!.kid} +retired`))
    expect(listed).toMatch(new RegExp(`2 +${after.keys[0]!.kid} +current`))
    // UMO_SIGNING_KEY in use: the new key must go somewhere the operator names.
    await expect(
      promisify(execFile)(
        process.execPath,
        ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", "signing-key", "rotate"],
        {
          env: {
            ...process.env,
            UMO_DATA_DIR: dataDir,
            DATABASE_URL: "",
            UMO_SIGNING_KEY: readFileSync(join(dataDir, "signing-key.pem"), "utf8")
          }
        }
      )
    ).rejects.toThrow(/--out FILE/)
  }, 120_000)
})

describe("npx umo mcp (stdio)", () => {
  const mcpDir = mkdtempSync(join(tmpdir(), "umo-mcp-stdio-"))
  afterAll(() => rmSync(mcpDir, { recursive: true, force: true }))

  /** An MCP host's session: the SDK client starts `umo mcp` (the package's bin) and talks over its stdio. */
  const session = async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["server/bin/umo.js", "mcp", "--data-dir", mcpDir, "--account", "desk"],
      env: { ...(process.env as Record<string, string>), UMO_EMBEDDER: "use-lite", DATABASE_URL: "" },
      stderr: "pipe"
    })
    const client = new Client({ name: "umo-stdio-test", version: "1.0.0" })
    await client.connect(transport)
    return client
  }
  const structured = async <T>(client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false)
    return result.structuredContent as T
  }

  it("captures, searches, answers and forgets in-process on a data directory, which keeps them", async () => {
    const first = await session()
    expect((await first.listTools()).tools.map((t) => t.name)).toContain("capture_memory")
    const kept = await structured<{ umo_id: string }>(first, "capture_memory", {
      content: "The boiler service is booked for 3 December 2026 with Hendrik."
    })
    const dropped = await structured<{ umo_id: string }>(first, "capture_memory", {
      content: "Temporary note: the wifi password is hunter2."
    })
    const found = await structured<{ results: Array<{ umo_id: string }> }>(first, "search_memories", {
      query: "When is the boiler service?"
    })
    expect(found.results[0]?.umo_id).toBe(kept.umo_id)
    const answer = await structured<{ answer: string }>(first, "answer_question", {
      question: "When is the boiler service booked?"
    })
    expect(answer.answer).toMatch(/3 December 2026/)
    expect(
      (await structured<{ forgotten: boolean }>(first, "forget_memory", { umo_id: dropped.umo_id })).forgotten
    ).toBe(true)
    // Closing the session ends the process and releases the data directory for the next one.
    await first.close()

    const second = await session()
    const page = await structured<{ items: Array<{ umo_id: string }> }>(second, "list_memories", {})
    expect(page.items.map((i) => i.umo_id)).toEqual([kept.umo_id])
    expect((await structured<{ verdict: string }>(second, "verify_memory", kept)).verdict).toBe("verified")
    await second.close()
  }, 120_000)
})
