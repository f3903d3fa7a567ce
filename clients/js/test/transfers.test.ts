import {
  type ExportedMemory,
  type ExportLine,
  type Memory,
  UMOClient,
  type UMOMemory,
  ValidationError
} from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"

// A real server on an ephemeral port (PGlite in memory): alice exports, bob imports.
let server: Awaited<ReturnType<typeof startListening>>
let alice: UMOClient
let bob: UMOClient

beforeAll(async () => {
  server = await startListening()
  alice = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
  bob = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.bob })
})

afterAll(() => server.stop())

const all = async <A>(lines: AsyncIterable<A>): Promise<Array<A>> => {
  const collected: Array<A> = []
  for await (const line of lines) collected.push(line)
  return collected
}

/** The lines as the file an export is written to. */
const ndjson = (lines: ReadonlyArray<ExportLine>) => lines.map((line) => `${JSON.stringify(line)}\n`).join("")

/** `text` in pieces of `size` characters, as a file's stream gives them. */
async function* pieces(text: string, size = 101): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size)
}

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

/** Every memory of an account, whole, superseded ones too, by content. */
const memoriesOf = async (umo: UMOMemory) => {
  const page = await umo.list({ limit: 100, includeSuperseded: true })
  const memories = await Promise.all(page.items.map((item) => umo.get(item.umoId)))
  return memories.sort((a, b) => a.contentText.localeCompare(b.contentText))
}

describe("exportMemories and importMemories over HTTP", () => {
  it("streams an export (header first, end last) that another account imports whole", async () => {
    const madrid = await alice.capture("I have lived in Madrid for six years.", {
      userId: "maria",
      metadata: { topic: "home", tags: ["a", "b"] },
      timestamp: "2023-01-10T00:00:00Z"
    })
    await alice.capture("We signed the lease on our flat in Lisbon.", {
      userId: "maria",
      agentId: "planner",
      sessionId: "s1",
      source: "journal",
      supersedes: [madrid.umoId],
      timestamp: "2024-03-02T00:00:00Z"
    })
    await alice.capture("Ada wrote the first program.", { metadata: { topic: "history" } })

    const lines = await all(alice.exportMemories())
    expect(lines[0]).toMatchObject({ kind: "umo-export", version: 1, account: expect.any(String) })
    expect(lines.at(-1)).toEqual({ kind: "end", memories: 3 })
    const memories = lines.filter((l): l is ExportedMemory => l.kind === "memory")
    expect(memories.map((m) => m.content)).toEqual([
      "I have lived in Madrid for six years.",
      "We signed the lease on our flat in Lisbon.",
      "Ada wrote the first program."
    ])
    expect(memories[0]).toMatchObject({
      umo_id: madrid.umoId,
      user_id: "maria",
      superseded_by: expect.any(String)
    })

    // Read as a file's stream, sent as it is read.
    const summary = await bob.importMemories(pieces(ndjson(lines)))
    expect(summary).toMatchObject({
      format: "umo",
      imported: 3,
      alreadyImported: 0,
      verified: 3,
      linked: 1,
      failed: 0,
      stoppedAt: null,
      complete: true
    })
    const originals = await memoriesOf(alice)
    const copies = await memoriesOf(bob)
    expect(copies.map(essence)).toEqual(originals.map(essence))
    for (const [i, copy] of copies.entries())
      expect(copy.importedFrom).toEqual({
        format: "umo",
        id: originals[i]!.umoId,
        createdAt: originals[i]!.createdAt,
        verified: true
      })
    expect(originals.every((m) => m.importedFrom === null)).toBe(true)

    // The same export again, as one text: nothing twice.
    expect(await bob.importMemories(ndjson(lines))).toMatchObject({ imported: 0, alreadyImported: 3 })
  })

  it("exports a selection, current memories only when asked, and resumes after a memory", async () => {
    const maria = await all(alice.exportMemories({ userId: "maria", includeSuperseded: false }))
    expect(maria.filter((l) => l.kind === "memory").map((l) => (l as ExportedMemory).content)).toEqual([
      "We signed the lease on our flat in Lisbon."
    ])
    const tagged = await all(alice.exportMemories({ metadata: { topic: ["home", "history"] } }))
    expect(tagged.at(-1)).toEqual({ kind: "end", memories: 2 })
    const filtered = await all(alice.exportMemories({ filters: { agent_id: { eq: "planner" } } }))
    expect(filtered.at(-1)).toEqual({ kind: "end", memories: 1 })

    const whole = (await all(alice.exportMemories())).filter(
      (l) => l.kind === "memory"
    ) as Array<ExportedMemory>
    const rest = await all(alice.exportMemories({ afterId: whole[0]!.umo_id, embeddings: true }))
    const after = rest.filter((l) => l.kind === "memory") as Array<ExportedMemory>
    expect(after.map((m) => m.umo_id)).toEqual(whole.slice(1).map((m) => m.umo_id))
    expect(after[0]!.embedding?.chunks[0]?.vector.length).toBeGreaterThan(0)
  })

  it("yields lines as they are read: a loop may stop after the header", async () => {
    for await (const line of alice.exportMemories()) {
      expect(line.kind).toBe("umo-export")
      break
    }
    expect((await alice.account()).name).toBeTruthy()
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
    const summary = await alice.importMemories(new TextEncoder().encode(document), { format: "mem0" })
    expect(summary).toMatchObject({ format: "mem0", lines: 1, imported: 1, failed: 0, complete: true })
    const [match] = await alice.ask("Where do I live?", { userId: "alice" })
    const copy = await alice.get(match!.umoId)
    expect(copy.contentText).toBe("I live in Madrid")
    expect(copy.userId).toBe("alice")
    expect(copy.importedFrom).toMatchObject({ format: "mem0", id: "mem0-1" })
    expect(copy.importedFrom?.createdAt).toMatch(/^2024-01-01T00:00:00/)
  })

  it("refuses a bad option with the client's typed error", async () => {
    const badExport = await all(alice.exportMemories({ after: "yesterday" })).catch((e) => e)
    expect(badExport).toBeInstanceOf(ValidationError)
    expect(badExport.status).toBe(422)
    const badId = await all(alice.exportMemories({ afterId: "not-an-id" })).catch((e) => e)
    expect(badId).toBeInstanceOf(ValidationError)
    expect(badId.detail).toMatch(/after_id/)
    const badScope = await all(alice.exportMemories({ userId: "" })).catch((e) => e)
    expect(badScope).toBeInstanceOf(ValidationError)
    const badMetadata = await all(alice.exportMemories({ metadata: { "no spaces": "x" } })).catch((e) => e)
    expect(badMetadata).toBeInstanceOf(ValidationError)
    const badFormat = await bob.importMemories("{}", { format: "xml" as unknown as "umo" }).catch((e) => e)
    expect(badFormat).toBeInstanceOf(ValidationError)
    expect(badFormat.detail).toMatch(/format/)
    const badStreamed = await bob
      .importMemories(pieces('{"kind":"end","memories":0}\n'), { onError: "never" as unknown as "stop" })
      .catch((e) => e)
    expect(badStreamed).toBeInstanceOf(ValidationError)
  })
})
