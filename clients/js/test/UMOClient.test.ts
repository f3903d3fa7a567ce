import {
  APIError,
  AuthenticationError,
  NotFoundError,
  RateLimitError,
  UMOClient,
  UMOError,
  ValidationError,
  verifyProof,
  verifyReceipt
} from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"

// A real server on an ephemeral port: every call goes through fetch and a socket. The cloud
// provider's address is a closed port, so a cloud answer fails the way an outage would (502).
process.env.OPENAI_BASE_URL = "http://127.0.0.1:9"
let server: Awaited<ReturnType<typeof startListening>>
let alice: UMOClient
let bob: UMOClient

beforeAll(async () => {
  server = await startListening()
  alice = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
  bob = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.bob })
})

afterAll(() => server.stop())

const lunch = "Maria Lopez had lunch with Tom at Nopa in San Francisco on Friday. The pasta was great."

describe("UMOClient options", () => {
  it("takes the base URL and key from options, else from the environment", () => {
    const given = new UMOClient({ baseUrl: "http://example.test/", apiKey: "umo_x" })
    expect([given.baseUrl, given.apiKey, given.maxRetries]).toEqual(["http://example.test", "umo_x", 2])
    process.env.UMO_API_KEY = "umo_from_env"
    process.env.UMO_BASE_URL = "http://env.test"
    const fromEnv = new UMOClient()
    delete process.env.UMO_API_KEY
    delete process.env.UMO_BASE_URL
    expect([fromEnv.baseUrl, fromEnv.apiKey]).toEqual(["http://env.test", "umo_from_env"])
  })

  it("refuses an authenticated call without a key, before any request", async () => {
    const failure = await new UMOClient({ baseUrl: server.baseUrl, apiKey: "" }).account().catch((e) => e)
    expect(failure).toBeInstanceOf(UMOError)
    expect(failure.message).toMatch(/UMO_API_KEY/)
  })
})

describe("the nine verbs", () => {
  it("capture, get, ask, list, explain, verify and forget one memory", async () => {
    const captured = await alice.capture(lunch, {
      source: "journal",
      timestamp: new Date("2026-11-20T12:00:00Z")
    })
    expect(captured.umoId).toMatch(/^[0-9a-f-]{36}$/)
    expect(captured.raw.umo_id).toBe(captured.umoId)

    const memory = await alice.get(captured.umoId)
    expect(memory.umoId).toBe(captured.umoId)
    expect(memory.source).toBe("journal")
    expect(memory.timestamp).toBe("2026-11-20T12:00:00.000Z")
    expect(memory.entities.map((e) => e.text)).toEqual(
      expect.arrayContaining(["Maria Lopez", "San Francisco"])
    )
    expect(memory.triples.length).toBeGreaterThan(0)
    expect(memory.qualityScore).toBeGreaterThan(0)
    expect(memory.contentHash).toBe(captured.contentHash)

    const [best] = await alice.ask("Where did Maria have lunch?", { limit: 3 })
    expect(best?.umoId).toBe(captured.umoId)
    expect(best?.content).toBe(lunch)
    expect(best?.score).toBeGreaterThan(0)

    const page = await alice.list({ source: "journal" })
    expect(page.items.map((i) => i.umoId)).toContain(captured.umoId)
    expect(page.totalCount).toBeGreaterThanOrEqual(1)

    const explanation = await alice.explain(captured.umoId)
    expect(explanation.summary.length).toBeGreaterThan(0)
    expect(explanation.keyReasons.length).toBeGreaterThan(0)
    expect(explanation.reproducible).toBe(true)
    const why = await alice.explain(captured.umoId, { query: "lunch in San Francisco" })
    expect(why.keyReasons[0]).toMatch(/^Semantic similarity to the query/)
    expect((await alice.get(captured.umoId)).extensions).toEqual({})

    const proof = await alice.verify(captured.umoId)
    expect([proof.valid, proof.hashChainValid, proof.chainTampered]).toEqual([true, true, false])
    expect(proof.entry?.umo_id).toBe(captured.umoId)

    const receipt = await alice.forget(captured.umoId)
    expect([receipt.forgotten, receipt.umoId]).toEqual([true, captured.umoId])
    await expect(alice.get(captured.umoId)).rejects.toBeInstanceOf(NotFoundError)
  })

  it("upload captures a file given as a Blob and a filename", async () => {
    const file = new Blob(["# Trip\n\nWe hiked Mount Tamalpais with Priya in October."], {
      type: "text/markdown"
    })
    const uploaded = await alice.upload(file, "trip.md", { source: "notes" })
    expect(uploaded.format).toBe("markdown")
    expect(uploaded.characters).toBeGreaterThan(20)
    expect((await alice.get(uploaded.umoId)).source).toBe("notes")
  })

  it("batch captures texts and objects, reporting a bad item without losing the others", async () => {
    const results = await alice.batch([
      "The team retro is on Tuesday at 10am.",
      { content: "Invoice 4411 was paid in full.", source: "billing", timestamp: "2026-01-05T09:00:00Z" },
      { content: "" }
    ])
    expect(results.map((r) => [r.index, r.success])).toEqual([
      [0, true],
      [1, true],
      [2, false]
    ])
    expect(results[2]?.error?.status).toBe(422)
    expect((await alice.get(results[1]?.umoId ?? "")).source).toBe("billing")
  })

  it("iterate walks every page of list", async () => {
    const notes = Array.from({ length: 7 }, (_, i) => ({ content: `Page test note ${i}.`, source: "paging" }))
    const results = await alice.batch(notes)
    const seen: Array<string> = []
    for await (const item of alice.iterate({ source: "paging", limit: 3 })) seen.push(item.umoId)
    expect(seen.sort()).toEqual(results.map((r) => r.umoId).sort())
  })
})

describe("update and scopes", () => {
  it("changes a memory by a new version and lists the scopes that hold memories", async () => {
    const user = `u-${crypto.randomUUID().slice(0, 8)}`
    const first = await alice.capture("Keeps the spare key under the blue pot.", { userId: user })
    const again = await alice.capture("Keeps the spare key under the blue pot.", { userId: user })
    expect(again.duplicateOf).toBe(first.umoId)
    expect(again.umoId).toBe(first.umoId)
    const moved = await alice.update(first.umoId, { content: "Keeps the spare key with the neighbour." })
    expect(moved.supersedes).toEqual([first.umoId])
    const history = await alice.history(first.umoId)
    expect(history.versions.map((v) => v.umoId)).toEqual([first.umoId, moved.umoId])
    const page = await alice.scopes({ kind: "user", prefix: user })
    expect(page.scopes.map((s) => [s.kind, s.id, s.memories])).toEqual([["user", user, 1]])
    await expect(alice.update(first.umoId, { content: "Lost the key." })).rejects.toBeInstanceOf(
      ValidationError
    )
  })

  it("refuses an option a call does not take, before any request, in plain JavaScript too", async () => {
    const noServer = new UMOClient({ baseUrl: "http://127.0.0.1:9", apiKey: "umo_x", maxRetries: 0 })
    const refused = noServer.capture("I live in Nice", { user_id: "frank" } as never)
    await expect(refused).rejects.toBeInstanceOf(ValidationError)
    await expect(refused).rejects.toMatchObject({
      status: 422,
      detail: expect.stringContaining("user_id: not an option of capture (did you mean userId?)")
    })
    await expect(noServer.ask("where?", { userid: "frank" } as never)).rejects.toMatchObject({
      detail: expect.stringContaining("userid: not an option of ask")
    })
    await expect(noServer.batch([{ content: "x", session: "s" } as never])).rejects.toMatchObject({
      detail: expect.stringContaining("session: not an option of batch item")
    })
    await expect(noServer.list({ limitt: 3 } as never)).rejects.toBeInstanceOf(ValidationError)
    await expect(noServer.scopes({ kind: "user", order: "asc" } as never)).rejects.toBeInstanceOf(
      ValidationError
    )
  })
})

describe("the calls beyond the nine verbs", () => {
  it("answer, compare, account, models, health and signingKeys", async () => {
    const first = await alice.capture("Priya moved to Lisbon in March 2024 to join a robotics startup.")
    const second = await alice.capture(
      "In March 2024 Priya relocated to Lisbon for a job at a robotics company."
    )

    const answer = await alice.answer("Which city did Priya move to for the robotics startup?")
    expect(answer.method).toBe("extractive")
    expect(answer.questionType).toBe("location")
    expect(answer.text).toMatch(/Lisbon/)
    expect(answer.citations[0]?.umoId).toMatch(/^[0-9a-f-]{36}$/)

    const comparison = await alice.compare(first.umoId, second.umoId, { explain: true })
    expect(comparison.relationship).not.toBe("unrelated")
    expect(comparison.similarity).toBeGreaterThan(0.5)
    expect(comparison.breakdown).not.toBeNull()

    const account = await alice.account()
    expect([account.name, account.keyStatus]).toEqual(["alice", "active"])
    const models = await alice.models()
    expect(models.defaultModel).toBe("umo-extractive")
    expect(models.cloud.every((m) => m.requiresKey)).toBe(true)
    expect(await alice.health()).toMatchObject({ status: "healthy", index: { budgetMb: 1024, shard: null } })
    const { keys: jwks } = await alice.signingKeys()
    expect(jwks[0]).toMatchObject({ kty: "OKP", crv: "Ed25519" })
  })
})

describe("offline verification with the pinned signing key", () => {
  it("checks a proof, a capture receipt and a deletion receipt, and rejects forgeries", async () => {
    const pinned = await new UMOClient({ baseUrl: server.baseUrl }).signingKeys()
    const text = "The lab notebook for experiment 12 is in the top drawer."
    const captured = await alice.capture(text)
    const proof = await alice.verify(captured.umoId)
    expect(await verifyProof(proof, pinned, text)).toBe(true)
    expect(await verifyProof(proof, pinned, `${text} `)).toBe(false)
    const forged = Object.assign(Object.create(Object.getPrototypeOf(proof)), proof, {
      entry: { ...proof.entry, recorded_at: "2020-01-01T00:00:00.000Z" }
    })
    expect(await verifyProof(forged, pinned)).toBe(false)
    const otherKey = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }
    expect(await verifyProof(proof, otherKey)).toBe(false)

    expect((await verifyReceipt(captured.receipt, pinned)).entry.kind).toBe("capture")
    const deletion = await alice.forget(captured.umoId)
    const claims = await verifyReceipt(deletion.receipt, pinned)
    expect([claims.umo_id, claims.entry.kind]).toEqual([captured.umoId, "delete"])
    const [header, payload, signature] = deletion.receipt.split(".")
    const tampered = `${header}.${payload?.slice(0, -2)}AA.${signature}`
    await expect(verifyReceipt(tampered, pinned)).rejects.toThrow(/signature|base64url/)
    await expect(verifyReceipt(deletion.receipt, otherKey)).rejects.toThrow(/signature/)
  })
})

describe("errors", () => {
  it("maps each failure to its class with status, detail and request id", async () => {
    const stranger = new UMOClient({ baseUrl: server.baseUrl, apiKey: "umo_not-a-key" })
    const unauthorized = await stranger.list().catch((e) => e)
    expect(unauthorized).toBeInstanceOf(AuthenticationError)
    expect([unauthorized.status, typeof unauthorized.detail]).toEqual([401, "string"])
    expect(unauthorized.requestId).toMatch(/.+/)

    const mine = await alice.capture("Only Alice may read this note about the garden.")
    const hidden = await bob.get(mine.umoId).catch((e) => e)
    expect(hidden).toBeInstanceOf(NotFoundError)
    expect(hidden.status).toBe(404)
    await expect(bob.forget(mine.umoId)).rejects.toBeInstanceOf(NotFoundError)

    const invalid = await alice.capture("").catch((e) => e)
    expect(invalid).toBeInstanceOf(ValidationError)
    expect(invalid.status).toBe(422)
    expect(invalid.detail).toMatch(/content/)
    const binary = new Blob([new Uint8Array([0, 1, 2, 3, 255])])
    const unsupported = await alice.upload(binary, "x.bin").catch((e) => e)
    expect(unsupported).toBeInstanceOf(ValidationError)
    expect(unsupported.status).toBe(415)

    const cloud = { model: "openai:gpt-4o-mini", providerKey: "sk-x" }
    const provider = await alice.answer("Where is the garden?", cloud).catch((e) => e)
    expect(provider).toBeInstanceOf(APIError)
    expect(provider.status).toBe(502)

    const unreachable = await new UMOClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" })
      .list()
      .catch((e) => e)
    expect(unreachable).toBeInstanceOf(APIError)
    expect(unreachable.status).toBeNull()
    for (const error of [unauthorized, hidden, invalid, provider, unreachable])
      expect(error).toBeInstanceOf(UMOError)
  })
})

describe("rate limits", () => {
  let limited: Awaited<ReturnType<typeof startListening>>
  beforeAll(async () => {
    limited = await startListening({ ratePerMinute: 60 })
  })
  afterAll(() => limited.stop())

  it("raises RateLimitError with retryAfter when retries are off, and retries until it passes", async () => {
    const impatient = new UMOClient({ baseUrl: limited.baseUrl, apiKey: keys.alice, maxRetries: 0 })
    let failure: unknown
    for (let i = 0; i < 100 && failure === undefined; i++)
      failure = await impatient.account().then(
        () => undefined,
        (e) => e
      )
    expect(failure).toBeInstanceOf(RateLimitError)
    expect((failure as RateLimitError).status).toBe(429)
    expect((failure as RateLimitError).retryAfter).toBeGreaterThanOrEqual(1)

    // The bucket is empty now, so this call meets a 429 first and succeeds after Retry-After.
    const patient = new UMOClient({ baseUrl: limited.baseUrl, apiKey: keys.alice, maxRetries: 3 })
    expect((await patient.account()).name).toBe("alice")
  })
})
