import { it } from "@effect/vitest"
import { AccountStore, isUmoId, sha256Hex, verifyReceipt } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { clientFor, keys, rawCall, TestServer } from "../support/TestServer.js"

const marie = { content: "Marie Curie was born in Warsaw and worked in Paris.", source: "notes" }

describe("memories", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("POST /v1/process captures and answers in the envelope, with a receipt", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const response = yield* alice.memories.process({ headers: {}, payload: marie })
        expect(response).toMatchObject({
          status: "success",
          request_id: expect.any(String),
          timestamp: expect.any(String)
        })
        expect(isUmoId(response.data.umo_id)).toBe(true)
        expect(response.data.umo_id[14]).toBe("7")
        expect(response.data.quality_score).toBeGreaterThan(0.5)
        expect(response.data.receipt.split(".")).toHaveLength(3)
        const alias = yield* alice.memories.create({
          headers: {},
          payload: { content: "The alias stores memories too." }
        })
        expect(isUmoId(alias.data.umo_id)).toBe(true)
      })
    )

    it.effect("accepts 50,000 characters and refuses 50,001 with 422", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const word = "memory "
        const exact = word.repeat(Math.ceil(50_000 / word.length)).slice(0, 50_000)
        const ok = yield* alice.memories.process({ headers: {}, payload: { content: exact } })
        expect(isUmoId(ok.data.umo_id)).toBe(true)
        const tooLong = yield* rawCall(keys.alice, "POST", "/v1/process", { content: `${exact}x` })
        expect(tooLong).toEqual({
          status: 422,
          body: { detail: "invalid request body: content: must be at most 50,000 characters" }
        })
        // Characters are code points: 50,000 emoji are 50,000 characters.
        const emoji = yield* alice.memories.process({
          headers: {},
          payload: { content: "🙂".repeat(50_000) }
        })
        expect(isUmoId(emoji.data.umo_id)).toBe(true)
      })
    )

    it.effect("refuses bad bodies with 422 {detail}", () =>
      Effect.gen(function* () {
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const post = (body: string) =>
          http.execute(
            HttpClientRequest.post("/v1/process").pipe(HttpClientRequest.bodyText(body, "application/json"))
          )
        for (const body of [
          "{",
          "{}",
          '{"content": 42}',
          '{"content": "   "}',
          '{"content": "x", "timestamp": "yesterday"}',
          "[]"
        ]) {
          const response = yield* post(body)
          expect(response.status, body).toBe(422)
          expect(yield* response.json, body).toEqual({ detail: expect.any(String) })
          expect(response.headers["x-request-id"]).toBeDefined()
        }
      })
    )

    it.effect("refuses a request body over 24 MB with 413 {detail}", () =>
      Effect.gen(function* () {
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const body = JSON.stringify({ content: "x".repeat(25 * 1024 * 1024) })
        const response = yield* http.execute(
          HttpClientRequest.post("/v1/process").pipe(HttpClientRequest.bodyText(body, "application/json"))
        )
        expect(response.status).toBe(413)
        expect(yield* response.json).toEqual({ detail: expect.any(String) })
      })
    )

    it.effect("GET /v1/memories lists newest first, paginated, with limits at their edges", () =>
      Effect.gen(function* () {
        const bob = yield* clientFor(keys.bob)
        for (let i = 0; i < 3; i++)
          yield* bob.memories.process({
            headers: {},
            payload: { content: `Bob's note number ${i}.`, source: i === 1 ? "chat" : "notes" }
          })
        const all = yield* bob.memories.list({ query: {} })
        expect(all.data.total_count).toBe(3)
        expect(all.data.items.map((m) => m.summary)).toEqual([
          "Bob's note number 2.",
          "Bob's note number 1.",
          "Bob's note number 0."
        ])
        const page = yield* bob.memories.list({ query: { limit: 1, offset: 1 } })
        expect(page.data).toMatchObject({ total_count: 3, has_more: true })
        expect(page.data.items[0]!.summary).toBe("Bob's note number 1.")
        const chat = yield* bob.memories.list({ query: { source: "chat" } })
        expect(chat.data.items.map((m) => m.source)).toEqual(["chat"])
        expect((yield* bob.memories.list({ query: { limit: 100 } })).data.items).toHaveLength(3)
        for (const [query, rule] of [
          ["limit=101", "limit: Expected a value between 1 and 100"],
          ["limit=0", "limit: Expected a value between 1 and 100"],
          ["limit=", "limit"],
          ["offset=-1", "offset: Expected a value between 0 and"],
          ["limit=1.5", "limit: Expected an integer"]
        ] as const) {
          const error = yield* rawCall(keys.bob, "GET", `/v1/memories?${query}`)
          expect(error.status, query).toBe(422)
          expect(error.body.detail, query).toContain(`invalid query string: ${rule}`)
        }
      })
    )

    it.effect("GET, proof and DELETE one memory; then it is gone", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const { data } = yield* alice.memories.process({ headers: {}, payload: marie })
        const memory = yield* alice.memories.get({ params: { id: data.umo_id } })
        expect(memory).toMatchObject({
          umo_id: data.umo_id,
          source: "notes",
          quality_score: data.quality_score
        })
        expect(memory.entities).toContainEqual(
          expect.objectContaining({ text: "Marie Curie", type: "PERSON" })
        )
        expect(memory).not.toHaveProperty("status")
        const proof = yield* alice.memories.proof({ params: { id: data.umo_id } })
        expect(proof.data).toMatchObject({
          valid: true,
          hash_chain_valid: true,
          audit_proof: {
            content_hash: data.content_hash,
            verification_mode: "cryptographic",
            chain_tampered: false
          }
        })
        const receipt = yield* alice.memories.forget({ params: { id: data.umo_id } })
        expect(receipt).toMatchObject({ forgotten: true, umo_id: data.umo_id })
        const claims = yield* Effect.promise(() =>
          verifyReceipt(receipt.receipt, proof.data.public_key as never)
        )
        expect(claims.umo_id).toBe(data.umo_id)
        const gone = { detail: expect.stringContaining("no memory") }
        expect(yield* Effect.flip(alice.memories.get({ params: { id: data.umo_id } }))).toMatchObject(gone)
        expect(yield* Effect.flip(alice.memories.proof({ params: { id: data.umo_id } }))).toMatchObject(gone)
        expect(yield* Effect.flip(alice.memories.forget({ params: { id: data.umo_id } }))).toMatchObject(gone)
      })
    )

    it.effect("answers 404 for unknown and malformed ids, and for another account's", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const bob = yield* clientFor(keys.bob)
        const { data } = yield* alice.memories.process({ headers: {}, payload: marie })
        for (const id of [data.umo_id, "019a0000-0000-7000-8000-000000000000", "not-an-id", "%20"]) {
          expect(yield* Effect.flip(bob.memories.get({ params: { id } })), id).toMatchObject({
            detail: expect.any(String)
          })
          expect(yield* Effect.flip(bob.memories.proof({ params: { id } })), id).toMatchObject({
            detail: expect.any(String)
          })
          expect(yield* Effect.flip(bob.memories.forget({ params: { id } })), id).toMatchObject({
            detail: expect.any(String)
          })
        }
        // Bob's attempts changed nothing.
        expect((yield* alice.memories.proof({ params: { id: data.umo_id } })).data.valid).toBe(true)
      })
    )

    it.effect("answers 401 without a key or with a wrong one", () =>
      Effect.gen(function* () {
        const anonymous = yield* clientFor()
        const wrong = yield* clientFor("umo_wrong")
        expect(yield* Effect.flip(anonymous.account.status())).toMatchObject({
          detail: expect.stringContaining("missing")
        })
        expect(yield* Effect.flip(wrong.memories.list({ query: {} }))).toMatchObject({
          detail: expect.stringContaining("invalid")
        })
      })
    )

    it.effect("answers 401 to a key from the moment it is revoked", () =>
      Effect.gen(function* () {
        const accounts = yield* AccountStore
        const { account_id } = yield* accounts.ensureAccount("revoked")
        const key = `umo_revoke-me-${"0".repeat(26)}`
        yield* accounts.addKey(account_id, "revoke_me", sha256Hex(key))
        const client = yield* clientFor(key)
        expect((yield* client.account.status()).data.account.name).toBe("revoked")
        expect((yield* client.memories.query({ payload: { query: "anything" } })).data.results).toEqual([])
        expect(yield* accounts.revokeKey("revoke_me")).toBe(true)
        // Reads start while the key is looked up again (it was accepted lately), writes wait for
        // it: either way the answer is the 401, never the call's own answer or error (a 404 here).
        const refused = { detail: expect.stringContaining("revoked") }
        expect(yield* Effect.flip(client.account.status())).toMatchObject(refused)
        expect(yield* Effect.flip(client.memories.query({ payload: { query: "anything" } }))).toMatchObject(
          refused
        )
        expect(
          yield* Effect.flip(client.memories.get({ params: { id: crypto.randomUUID() } }))
        ).toMatchObject(refused)
        expect(
          yield* Effect.flip(client.memories.process({ headers: {}, payload: { content: "still here?" } }))
        ).toMatchObject(refused)
      })
    )

    it.effect("GET /v1/account names the key's account and plan", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const { data } = yield* alice.account.status()
        expect(data).toMatchObject({
          account: { user_id: expect.stringMatching(/^[0-9a-f-]{36}$/), workspace_id: null, name: "alice" },
          key: { key_id: "test_alice", tier: "beta", status: "active" },
          plan: { tier: "beta", umo_limit: null, search_limit: null, beta: true }
        })
      })
    )
  })

  it.layer(TestServer({ ratePerMinute: 3 }), { timeout: "120 seconds" })((it) => {
    it.effect("answers 429 with Retry-After and RateLimit headers past the key's limit", () =>
      Effect.gen(function* () {
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const statuses: Array<number> = []
        let last: { status: number; headers: Record<string, string> } | undefined
        for (let i = 0; i < 5; i++) {
          const response = yield* http.get("/v1/account")
          statuses.push(response.status)
          last = response
        }
        expect(statuses).toEqual([200, 200, 200, 429, 429])
        expect(last!.headers).toMatchObject({ "ratelimit-limit": "3", "ratelimit-remaining": "0" })
        expect(Number(last!.headers["retry-after"])).toBeGreaterThan(0)
      })
    )
  })
})

describe("Idempotency-Key", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    const count = (key: string) =>
      Effect.map(
        rawCall(key, "GET", "/v1/memories?limit=1"),
        (r) => (r.body as { data: { total_count: number } }).data.total_count
      )

    it.effect(
      "answers a repeated capture as the first time and stores it once; another body with the key is a 422",
      () =>
        Effect.gen(function* () {
          const before = yield* count(keys.alice)
          const send = (body: unknown, key = "capture-key-1") =>
            rawCall(keys.alice, "POST", "/v1/process", body, { "idempotency-key": key })
          const first = yield* send(marie)
          expect(first.status).toBe(200)
          const again = yield* send(marie)
          expect((again.body as { data: unknown }).data).toEqual((first.body as { data: unknown }).data)
          // A structured-field string names the same key.
          expect((yield* send(marie, '"capture-key-1"')).body).toMatchObject({
            data: (first.body as { data: unknown }).data
          })
          expect(yield* count(keys.alice)).toBe(before + 1)
          expect(yield* send({ ...marie, source: "other" })).toEqual({
            status: 422,
            body: {
              detail: "this Idempotency-Key was used with another request: use a new key for a new request"
            }
          })
          // Keys are the account's own: Bob's same key is a new capture.
          expect(
            (yield* rawCall(keys.bob, "POST", "/v1/process", marie, { "idempotency-key": "capture-key-1" }))
              .status
          ).toBe(200)
          expect((yield* send(marie, "bad key")).status).toBe(422)
        })
    )

    it.effect("stores one memory when the same request and key race", () =>
      Effect.gen(function* () {
        const before = yield* count(keys.alice)
        const answers = yield* Effect.forEach(
          Array.from({ length: 8 }, () => 0),
          () =>
            rawCall(
              keys.alice,
              "POST",
              "/v1/process",
              { content: "Raced capture of the harbour." },
              { "idempotency-key": "race-1" }
            ),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 8 }, () => 200))
        expect(new Set(answers.map((a) => (a.body as { data: { umo_id: string } }).data.umo_id)).size).toBe(1)
        expect(yield* count(keys.alice)).toBe(before + 1)
      })
    )

    it.effect("replays a batch whole", () =>
      Effect.gen(function* () {
        const before = yield* count(keys.alice)
        const items = [
          { content: "Batch one about kites." },
          { content: "" },
          { content: "Batch two about boats." }
        ]
        const first = yield* rawCall(
          keys.alice,
          "POST",
          "/v1/batch",
          { items },
          { "idempotency-key": "batch-1" }
        )
        const again = yield* rawCall(
          keys.alice,
          "POST",
          "/v1/batch",
          { items },
          { "idempotency-key": "batch-1" }
        )
        expect(again.body).toMatchObject({ data: (first.body as { data: unknown }).data })
        expect(yield* count(keys.alice)).toBe(before + 2)
      })
    )
  })
})
