import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  NotFoundError,
  type Raw,
  UMOClient,
  type UMOError,
  type UMOMemory,
  ValidationError,
  verifyProof,
  verifyReceipt
} from "@umo/client"
import { openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { afterAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../server/test/support/TestServer.js"

const dataDir = mkdtempSync(join(tmpdir(), "umo-memory-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const texts = [
  "Maria Lopez had lunch with Tom at Nopa in San Francisco on Friday. The pasta was great.",
  "Tom started a new job at Stripe in Dublin last March.",
  "The dentist moved my appointment to Thursday afternoon.",
  "Maria and Tom are planning a trip to Lisbon in June."
]
const note = new Blob(["# Trip\n\nBook the train from Lisbon to Porto for the 14th of June."], {
  type: "text/markdown"
})

/** What a call returned, as data: a result's wire object, or an error's class, status and detail. */
const outcome = async (call: () => Promise<unknown>): Promise<unknown> => {
  try {
    const result = await call()
    const raw = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(raw) : ((value as { raw?: Raw }).raw ?? value)
    return JSON.parse(JSON.stringify(raw(result)), (key, value) =>
      // Search scores carry the recency signal, which moves with the clock between the two runs.
      key === "score" && typeof value === "number" ? Math.round(value * 1e4) / 1e4 : value
    )
  } catch (error) {
    const e = error as UMOError
    return { error: e.name, status: e.status, detail: e.detail }
  }
}

/** The reads every way of reaching UMO answers alike, on the memories `ids` name. */
const reads = (umo: UMOMemory, ids: ReadonlyArray<string>) => ({
  get: () => umo.get(ids[0]!),
  list: () => umo.list({ limit: 3 }),
  listBySource: () => umo.list({ source: "trips" }),
  iterate: async () => {
    const all: Array<unknown> = []
    for await (const item of umo.iterate({ limit: 2 })) all.push(item)
    return all
  },
  ask: () => umo.ask("Where does Tom work?", { limit: 3 }),
  answer: () => umo.answer("Where did Maria have lunch?"),
  answerWithModel: () =>
    umo.answer("Who moved the appointment?", { model: "umo-extractive", contextSize: 2 }),
  compare: () => umo.compare(ids[0]!, ids[3]!, { explain: true, threshold: 0.3 }),
  explain: () => umo.explain(ids[1]!),
  explainQuery: () => umo.explain(ids[1]!, { query: "new job in Dublin" }),
  verify: () => umo.verify(ids[0]!),
  models: () => umo.models(),
  signingKeys: () => umo.signingKeys(),
  unknownId: () => umo.get("00000000-0000-7000-8000-000000000000"),
  malformedId: () => umo.verify("not-an-id"),
  unknownModel: () => umo.answer("Where?", { model: "no-such-model" }),
  cloudWithoutKey: () => umo.answer("Where?", { model: "openai:gpt-4o" }),
  badLimit: () => umo.list({ limit: 500 }),
  emptyCapture: () => umo.capture("   \n "),
  longQuery: () => umo.ask("x".repeat(2_001))
})

/** A capture's answer less what differs between any two captures: its id, time and receipt. */
const shapeOf = (value: unknown) =>
  JSON.parse(JSON.stringify(value), (key, v) =>
    ["umo_id", "created_at", "receipt", "umoId", "createdAt"].includes(key) ? "…" : v
  )

describe("openMemory and UMOClient", () => {
  const http: Record<string, unknown> = {}
  const ids: Array<string> = []
  const replayKey = crypto.randomUUID()
  let replayed: unknown

  it("a server on a data directory answers the calls (recorded)", async () => {
    const server = await startListening({ dataDir })
    try {
      const alice = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
      const first = await alice.capture(texts[0]!, { source: "journal", timestamp: "2026-11-20T12:00:00Z" })
      const batch = await alice.batch([texts[1]!, { content: texts[2]!, source: "health" }, { content: "" }])
      const trip = await alice.capture(texts[3]!, { source: "trips", idempotencyKey: replayKey })
      ids.push(first.umoId, batch[0]!.umoId!, batch[1]!.umoId!, trip.umoId)
      replayed = await outcome(async () => trip)
      http.upload = shapeOf(await outcome(() => alice.upload(note, "trip.md", { source: "trips" })))
      http.batch = shapeOf(await outcome(async () => batch))
      for (const [name, call] of Object.entries(reads(alice, ids))) http[name] = await outcome(call)
    } finally {
      await server.stop()
    }
    // What was recorded are real answers and real refusals, not failures of the harness.
    expect(http.get).toMatchObject({ umo_id: ids[0], source: "journal", extensions: {} })
    expect(http.iterate).toHaveLength(5)
    expect(http.answer).toMatchObject({ method: "extractive", citations: [{ umo_id: ids[0] }] })
    expect(http.compare).toMatchObject({ threshold: 0.3, breakdown: { weights: { semantic: 0.6 } } })
    expect((http.explainQuery as { human: { key_reasons: Array<string> } }).human.key_reasons[0]).toMatch(
      /^Semantic similarity to the query/
    )
    expect(http.verify).toMatchObject({ valid: true, hash_chain_valid: true, umo_id: ids[0] })
    expect(http.unknownId).toMatchObject({ error: "NotFoundError", status: 404 })
    expect(http.cloudWithoutKey).toMatchObject({ error: "ValidationError", status: 422 })
    expect(http.longQuery).toMatchObject({ error: "ValidationError", status: 422 })
  })

  it("in-process on the same data, answers them equally: results, errors and all", async () => {
    const umo = await openMemory({ dataDir, account: "alice", embedder: UseLiteEmbedder.layer() })
    try {
      for (const [name, call] of Object.entries(reads(umo, ids)))
        expect(await outcome(call), name).toEqual(http[name])
      // The same capture with the same idempotency key is the first answer, made by the server.
      expect(
        await outcome(() => umo.capture(texts[3]!, { source: "trips", idempotencyKey: replayKey }))
      ).toEqual(replayed)
      // The server stored this file already: asked not to, it is stored again, as the server's was.
      expect(
        shapeOf(await outcome(() => umo.upload(note, "trip.md", { source: "trips", dedupe: false })))
      ).toEqual(http.upload)
      // Left to itself, it answers with the memory already there.
      expect(
        ((await outcome(() => umo.upload(note, "trip.md", { source: "trips" }))) as { duplicate_of?: string })
          .duplicate_of
      ).toMatch(/^[0-9a-f-]{36}$/)
      const batch = await outcome(() =>
        // As the upload: the server stored these already, and here they are stored again.
        umo.batch([
          { content: texts[1]!, dedupe: false },
          { content: texts[2]!, source: "health", dedupe: false },
          { content: "" }
        ])
      )
      expect(shapeOf(batch)).toEqual(http.batch)
    } finally {
      await umo.close()
    }
  })

  it("captures, answers, proves offline and forgets in-process, raising the client's errors", async () => {
    const umo = await openMemory({ dataDir, account: "bob", embedder: UseLiteEmbedder.layer() })
    try {
      const keysPinned = await umo.signingKeys()
      const captured = await umo.capture("Grace Hopper found a moth in the Mark II in 1947.")
      expect(await umo.get(ids[0]!).catch((e) => e)).toBeInstanceOf(NotFoundError)
      const answer = await umo.answer("What did Grace Hopper find?")
      expect(answer.citations.map((c) => c.umoId)).toEqual([captured.umoId])
      const proof = await umo.verify(captured.umoId)
      expect(proof.valid).toBe(true)
      expect(await verifyProof(proof, keysPinned, "Grace Hopper found a moth in the Mark II in 1947.")).toBe(
        true
      )
      const forgotten = await umo.forget(captured.umoId)
      expect((await verifyReceipt(forgotten.receipt, keysPinned)).umo_id).toBe(captured.umoId)
      expect((await verifyReceipt(captured.receipt, keysPinned)).entry.kind).toBe("capture")
      const refused = await umo.capture("x".repeat(50_001)).catch((e) => e)
      expect(refused).toBeInstanceOf(ValidationError)
      expect(refused.status).toBe(422)
      expect(refused.detail).toBe("invalid request body: content: must be at most 50,000 characters")
      expect(await umo.account()).toMatchObject({
        name: "bob",
        keyId: "in-process",
        tier: expect.any(String)
      })
    } finally {
      await umo.close()
    }
  })

  it("holds the data directory while open: a second opening fails until close()", async () => {
    const first = await openMemory({ dataDir, embedder: UseLiteEmbedder.layer() })
    const second = await openMemory({ dataDir, embedder: UseLiteEmbedder.layer() }).catch((e: Error) => e)
    expect(second).toBeInstanceOf(Error)
    expect(String((second as Error).message)).toMatch(/in use|lock/i)
    await first.close()
    const third = await openMemory({ dataDir, embedder: UseLiteEmbedder.layer() })
    await third.close()
  })
})
