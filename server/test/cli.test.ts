import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
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
    expect(
      (await structured<{ verdict: string }>(second, "verify_memory", { umo_id: kept.umo_id })).verdict
    ).toBe("verified")
    await second.close()
  }, 120_000)
})

describe("npm run umo -- export / import", () => {
  const dir = mkdtempSync(join(tmpdir(), "umo-cli-transfers-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const run = (...args: Array<string>) =>
    promisify(execFile)(process.execPath, ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", ...args], {
      env: { ...process.env, UMO_DATA_DIR: dir, DATABASE_URL: "", UMO_EMBEDDER: "use-lite" }
    })
  const linesOf = (text: string) =>
    text
      .split("\n")
      .filter((line) => line !== "")
      .map(
        (line) => JSON.parse(line) as { kind: string; umo_id?: string; content?: string; memories?: number }
      )
  const mem0 = [
    { id: "m-1", memory: "Likes to hike on weekends", user_id: "alex", categories: ["hobbies"] },
    { id: "m-2", memory: "Is vegetarian", user_id: "alex", created_at: "2024-07-21T10:00:00Z" },
    { id: "m-3", memory: "Plays the cello on Tuesdays", user_id: "bea" },
    { id: "m-4", memory: "Allergic to cats", user_id: "bea", metadata: { source: "intake" } },
    { id: "m-5", memory: "Works from Lisbon in winter", user_id: "alex" }
  ]
  const full = join(dir, "full.jsonl")

  it("imports a Mem0 document, exports it to a file, and imports that into another account", async () => {
    const mem0File = join(dir, "mem0.json")
    writeFileSync(mem0File, JSON.stringify({ results: mem0 }, null, 2))
    const seeded = JSON.parse((await run("import", mem0File, "--account", "source")).stdout)
    expect(seeded).toMatchObject({ format: "mem0", imported: 5, failed: 0, complete: true })

    const exported = await run("export", "--account", "source", "--out", full)
    expect(exported.stderr).toContain("Exported 5 memories")
    const lines = linesOf(readFileSync(full, "utf8"))
    expect(lines.map((l) => l.kind)).toEqual(["umo-export", ...mem0.map(() => "memory"), "end"])
    expect(lines.at(-1)).toEqual({ kind: "end", memories: 5 })
    // To stdout, narrowed to one end user.
    const alex = linesOf((await run("export", "--account", "source", "--user-id", "alex")).stdout)
    expect(alex.filter((l) => l.kind === "memory")).toHaveLength(3)

    const copied = JSON.parse((await run("import", full, "--account", "copy", "--format", "umo")).stdout)
    // Each proof held; `verified` counts none, as each keeps its first origin (Mem0, unverified).
    expect(copied).toMatchObject({ format: "umo", imported: 5, failed: 0, stopped_at: null, complete: true })
    const arrived = linesOf((await run("export", "--account", "copy", "--include-superseded=false")).stdout)
    expect(
      arrived
        .filter((l) => l.kind === "memory")
        .map((l) => l.content)
        .sort()
    ).toEqual(mem0.map((m) => m.memory).sort())
  }, 180_000)

  it("resumes an export file cut in the middle: the same memories, one header, no duplicates", async () => {
    const whole = readFileSync(full, "utf8")
    const memoriesOf = (text: string) => text.split("\n").slice(1, -2)
    const lineEnds = [...whole.matchAll(/\n/g)].map((m) => m.index + 1)
    // Cut inside the third memory line, and just after the second one.
    for (const [name, cutAt] of [
      ["mid-line", lineEnds[2]! + 40],
      ["at-line", lineEnds[2]!]
    ] as const) {
      const file = join(dir, `${name}.jsonl`)
      writeFileSync(file, whole.slice(0, cutAt))
      const resumed = await run("export", "--account", "source", "--out", file)
      expect(resumed.stderr).toContain("3 memories added to the 2 it held")
      const text = readFileSync(file, "utf8")
      expect(memoriesOf(text)).toEqual(memoriesOf(whole))
      expect(linesOf(text).filter((l) => l.kind === "umo-export")).toHaveLength(1)
      expect(linesOf(text).at(-1)).toEqual({ kind: "end", memories: 5 })
    }
    // A whole file is left as it is.
    expect((await run("export", "--account", "source", "--out", full)).stderr).toContain("is a whole export")
    expect(readFileSync(full, "utf8")).toBe(whole)
  }, 180_000)

  it("refuses a bad --format, and exits non-zero when an import stops on an error", async () => {
    await expect(run("import", full, "--account", "copy", "--format", "csv")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Invalid value for flag --format: "csv"/)
    })
    const bad = join(dir, "bad.jsonl")
    writeFileSync(bad, `${JSON.stringify(mem0[0])}\n{"memory":"no id"}\n${JSON.stringify(mem0[1])}\n`)
    const stopped = await run("import", bad, "--account", "stops", "--on-error", "stop").catch(
      (error: { code: number; stdout: string; stderr: string }) => error
    )
    expect(stopped).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("the import stopped at line 2")
    })
    expect(JSON.parse(stopped.stdout)).toMatchObject({ imported: 1, failed: 1, stopped_at: { line: 2 } })
  }, 180_000)
})
