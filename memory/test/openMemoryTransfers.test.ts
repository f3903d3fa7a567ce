import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type ExportedMemory,
  type ExportLine,
  type Memory,
  type UMOMemory,
  ValidationError
} from "@umo/client"
import { type OpenMemory, openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// Two stores in-process, each its own PGlite directory and signing key: one exports, the other imports.
const dirs = [mkdtempSync(join(tmpdir(), "umo-export-")), mkdtempSync(join(tmpdir(), "umo-import-"))]
let from: OpenMemory
let to: OpenMemory

beforeAll(async () => {
  from = await openMemory({ dataDir: dirs[0], account: "alice", embedder: UseLiteEmbedder.layer() })
  to = await openMemory({ dataDir: dirs[1], account: "alice", embedder: UseLiteEmbedder.layer() })
})

afterAll(async () => {
  await Promise.all([from?.close(), to?.close()])
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const all = async <A>(lines: AsyncIterable<A>): Promise<Array<A>> => {
  const collected: Array<A> = []
  for await (const line of lines) collected.push(line)
  return collected
}

const ndjson = (lines: ReadonlyArray<ExportLine>) => lines.map((line) => `${JSON.stringify(line)}\n`).join("")

/** What a memory must keep across an export and an import, whatever its id. */
const essence = (m: Memory) => ({
  content: m.contentText,
  userId: m.userId,
  agentId: m.agentId,
  sessionId: m.sessionId,
  metadata: m.metadata,
  timestamp: m.timestamp,
  source: m.source,
  current: m.supersededBy === null
})

const memoriesOf = async (umo: UMOMemory) => {
  const page = await umo.list({ limit: 100, includeSuperseded: true })
  const memories = await Promise.all(page.items.map((item) => umo.get(item.umoId)))
  return memories.sort((a, b) => a.contentText.localeCompare(b.contentText))
}

describe("openMemory's exportMemories and importMemories", () => {
  it("round-trips an account into another store: content, scopes, metadata, supersessions, proofs", async () => {
    const madrid = await from.capture("I have lived in Madrid for six years.", {
      userId: "maria",
      metadata: { topic: "home", tags: ["a", "b"] },
      timestamp: "2023-01-10T00:00:00Z"
    })
    await from.capture("We signed the lease on our flat in Lisbon.", {
      userId: "maria",
      agentId: "planner",
      sessionId: "s1",
      source: "journal",
      supersedes: [madrid.umoId]
    })
    await from.capture("Ada wrote the first program.")

    const lines = await all(from.exportMemories({ embeddings: true }))
    expect(lines[0]).toMatchObject({ kind: "umo-export", version: 1, account: expect.any(String) })
    expect(lines.at(-1)).toEqual({ kind: "end", memories: 3 })
    const exported = lines.filter((l): l is ExportedMemory => l.kind === "memory")
    expect(exported[0]).toMatchObject({ umo_id: madrid.umoId, metadata: { topic: "home" } })
    expect(exported[0]!.embedding?.chunks.length).toBeGreaterThan(0)
    // The lines are the wire's: what JSON gives back is the same.
    expect(JSON.parse(JSON.stringify(lines))).toEqual(lines)

    // The input as the pieces of a file's stream.
    const text = ndjson(lines)
    async function* pieces() {
      for (let i = 0; i < text.length; i += 89) yield text.slice(i, i + 89)
    }
    const summary = await to.importMemories(pieces())
    expect(summary).toMatchObject({
      format: "umo",
      imported: 3,
      verified: 3,
      linked: 1,
      failed: 0,
      complete: true
    })
    const originals = await memoriesOf(from)
    const copies = await memoriesOf(to)
    expect(copies.map(essence)).toEqual(originals.map(essence))
    for (const [i, copy] of copies.entries())
      expect(copy.importedFrom).toEqual({
        format: "umo",
        id: originals[i]!.umoId,
        createdAt: originals[i]!.createdAt,
        verified: true
      })
    expect(await to.importMemories(new TextEncoder().encode(text))).toMatchObject({
      imported: 0,
      alreadyImported: 3
    })
    const current = await all(from.exportMemories({ userId: "maria", includeSuperseded: false }))
    expect(current.at(-1)).toEqual({ kind: "end", memories: 1 })
  })

  it("imports Mem0's get_all document", async () => {
    const document = JSON.stringify({
      results: [
        {
          id: "mem0-1",
          memory: "I live in Madrid",
          user_id: "alice",
          metadata: {},
          created_at: "2024-01-01T00:00:00Z"
        }
      ]
    })
    const summary = await to.importMemories(document)
    expect(summary).toMatchObject({ format: "mem0", imported: 1, failed: 0, complete: true })
    const [match] = await to.ask("Where do I live?", { userId: "alice" })
    const copy = await to.get(match!.umoId)
    expect(copy.contentText).toBe("I live in Madrid")
    expect(copy.importedFrom).toMatchObject({ format: "mem0", id: "mem0-1" })
  })

  it("stops a loop early, and refuses a bad option with the client's typed error", async () => {
    for await (const line of from.exportMemories()) {
      expect(line.kind).toBe("umo-export")
      break
    }
    const badExport = await all(from.exportMemories({ after: "yesterday" })).catch((e) => e)
    expect(badExport).toBeInstanceOf(ValidationError)
    expect(badExport.status).toBe(422)
    const badId = await all(from.exportMemories({ afterId: "not-an-id" })).catch((e) => e)
    expect(badId).toBeInstanceOf(ValidationError)
    expect(badId.detail).toMatch(/after_id/)
    const badImport = await to.importMemories("{}", { onError: "never" as unknown as "stop" }).catch((e) => e)
    expect(badImport).toBeInstanceOf(ValidationError)
    expect(badImport.detail).toMatch(/on_error/)
  })
})
