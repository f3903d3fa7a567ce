import { it } from "@effect/vitest"
import { verifyProof, verifyReceipt } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { keys, rawCall, TestServer } from "../support/TestServer.js"

type Data = Record<string, unknown>
const data = (reply: { readonly body: unknown }) => (reply.body as { data: Data }).data
const ids = (items: unknown) => (items as Array<{ umo_id: string }>).map((i) => i.umo_id)
const query = (fields: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [
      k,
      typeof v === "string" ? v : JSON.stringify(v)
    ])
  ).toString()

const capture = (body: Data) =>
  Effect.map(rawCall(keys.alice, "POST", "/v1/process", body), (reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return data(reply) as { umo_id: string; supersedes: Array<string>; superseded_by: string | null }
  })

describe("scopes, metadata, filters and updates over HTTP", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect(
      "stores scope and metadata, returns them, and filters lists by them (query-string JSON too)",
      () =>
        Effect.gen(function* () {
          const tag = crypto.randomUUID().slice(0, 8)
          const a = yield* capture({
            content: `Maria keeps her bike in the hallway ${tag}.`,
            user_id: `maria-${tag}`,
            agent_id: "concierge",
            session_id: "s1",
            metadata: { topic: "home", tags: ["bike", "hall"], stars: 4, pinned: true, note: null },
            infer_updates: false
          })
          yield* capture({
            content: `Jonas parks in the garage ${tag}.`,
            user_id: `jonas-${tag}`,
            metadata: { topic: "car" }
          })
          const record = yield* rawCall(keys.alice, "GET", `/v1/memories/${a.umo_id}`)
          expect(record.body).toMatchObject({
            user_id: `maria-${tag}`,
            agent_id: "concierge",
            session_id: "s1",
            metadata: { topic: "home", tags: ["bike", "hall"], stars: 4, pinned: true, note: null },
            supersedes: [],
            superseded_by: null,
            superseded_at: null
          })
          const list = (fields: Record<string, unknown>) =>
            Effect.map(rawCall(keys.alice, "GET", `/v1/memories?${query(fields)}`), (reply) => {
              expect(reply.status, JSON.stringify(reply.body)).toBe(200)
              return ids(data(reply).items)
            })
          expect(yield* list({ user_id: `maria-${tag}` })).toEqual([a.umo_id])
          expect(yield* list({ metadata: { topic: "home", tags: "bike" }, user_id: `maria-${tag}` })).toEqual(
            [a.umo_id]
          )
          // The shorthand is equality: operators belong in `filters`.
          const shorthand = yield* rawCall(
            keys.alice,
            "GET",
            `/v1/memories?${query({ metadata: { stars: { gte: 4 } } })}`
          )
          expect(shorthand.status).toBe(422)
          expect(
            yield* list({
              filters: { AND: [{ user_id: { icontains: tag } }, { metadata: { stars: { gte: 4 } } }] }
            })
          ).toEqual([a.umo_id])
          expect(
            (yield* list({ filters: { OR: [{ user_id: `maria-${tag}` }, { user_id: `jonas-${tag}` }] } }))
              .length
          ).toBe(2)
          // A filter that breaks a rule is a 422 that says where.
          const bad = yield* rawCall(
            keys.alice,
            "GET",
            `/v1/memories?${query({ filters: { AND: [{ user_id: { regex: "x" } }] } })}`
          )
          expect(bad.status).toBe(422)
          expect(bad.body.detail).toMatch(/filters\.AND\.0\.user_id\.regex: unknown operator/)
          const notJson = yield* rawCall(keys.alice, "GET", "/v1/memories?metadata=%7Bnope")
          expect(notJson.status).toBe(422)
          const tooDeep = yield* rawCall(keys.alice, "POST", "/v1/memories/query", {
            query: "bike",
            filters: Array.from({ length: 11 }).reduce<Data>((inner) => ({ NOT: inner }), { user_id: "x" })
          })
          expect(tooDeep.status).toBe(422)
          expect(tooDeep.body.detail).toMatch(/nests deeper than 10 levels/)
        })
    )

    it.effect("refuses bad scopes and metadata, and an unknown supersedes id, storing nothing", () =>
      Effect.gen(function* () {
        const before = data(
          yield* rawCall(keys.alice, "GET", "/v1/memories?include_superseded=true")
        ).total_count
        const cases: ReadonlyArray<readonly [Data, number, RegExp]> = [
          [{ content: "x", user_id: "" }, 422, /user_id: must be 1 to 200 printable characters/],
          [{ content: "x", user_id: "a\u0007b" }, 422, /user_id/],
          [{ content: "x", metadata: { "bad key": 1 } }, 422, /metadata key/],
          [{ content: "x", metadata: { a: { nested: true } } }, 422, /metadata/],
          [
            {
              content: "x",
              metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]))
            },
            422,
            /at most 32 keys/
          ],
          [
            {
              content: "x",
              metadata: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, "y".repeat(1000)]))
            },
            422,
            /8 KB/
          ],
          [
            { content: "x", supersedes: ["00000000-0000-7000-8000-000000000000"] },
            404,
            /no memory with id 00000000-0000-7000-8000-000000000000/
          ],
          [{ content: "x", supersedes: ["not-an-id"] }, 404, /no memory with that id/]
        ]
        for (const [body, status, detail] of cases) {
          const reply = yield* rawCall(keys.alice, "POST", "/v1/process", body)
          expect(reply.status, JSON.stringify(body)).toBe(status)
          expect(reply.body.detail).toMatch(detail)
        }
        // Bob's memory is as unknown to Alice as a made-up one.
        const bobs = data(yield* rawCall(keys.bob, "POST", "/v1/process", { content: "Bob's note." }))
          .umo_id as string
        const refused = yield* rawCall(keys.alice, "POST", "/v1/process", {
          content: "x",
          supersedes: [bobs]
        })
        expect(refused.status).toBe(404)
        const after = data(
          yield* rawCall(keys.alice, "GET", "/v1/memories?include_superseded=true")
        ).total_count
        expect(after).toBe(before)
      })
    )

    it.effect("supersedes, keeps the old version readable and provable, and gives the line of versions", () =>
      Effect.gen(function* () {
        const user = `u-${crypto.randomUUID()}`
        const old = yield* capture({
          content: "I have lived in Madrid for six years.",
          user_id: user,
          timestamp: "2023-01-01"
        })
        const lease = yield* capture({
          content: "Just signed the lease on our place in Lisbon!",
          user_id: user,
          timestamp: "2024-03-01"
        })
        // Inferred: the new value of where she lives replaces the old one.
        expect(lease.supersedes).toEqual([old.umo_id])
        const listed = ids(data(yield* rawCall(keys.alice, "GET", `/v1/memories?user_id=${user}`)).items)
        expect(listed).toEqual([lease.umo_id])
        const found = data(
          yield* rawCall(keys.alice, "POST", "/v1/memories/query", {
            query: "Where does she live?",
            user_id: user
          })
        )
        expect(ids(found.results)).toEqual([lease.umo_id])
        const answer = data(
          yield* rawCall(keys.alice, "POST", "/v1/ask", {
            question: "Where does she live now?",
            user_id: user
          })
        )
        expect(answer.answer).toMatch(/Lisbon/)
        const before = data(
          yield* rawCall(keys.alice, "POST", "/v1/ask", {
            question: "Where did she live before Lisbon?",
            user_id: user
          })
        )
        expect(before.answer).toMatch(/Madrid/)
        const history = data(yield* rawCall(keys.alice, "GET", `/v1/memories/${lease.umo_id}/history`))
        expect(ids(history.versions)).toEqual([old.umo_id, lease.umo_id])
        const proof = data(
          yield* rawCall(keys.alice, "GET", `/v1/memories/${old.umo_id}/proof`)
        ) as never as {
          valid: boolean
          superseded_by: string
          supersession: { kind: string }
          chain: unknown
          public_key: Data
          umo_id: string
          audit_proof: { content_hash: string; semantic_hash: string }
        }
        expect(proof).toMatchObject({
          valid: true,
          superseded_by: lease.umo_id,
          supersession: { kind: "supersede" }
        })
        const jwks = (yield* rawCall(undefined, "GET", "/.well-known/jwks.json")).body as never
        expect(
          verifyProof(
            {
              umo_id: old.umo_id,
              content_hash: proof.audit_proof.content_hash,
              semantic_hash: proof.audit_proof.semantic_hash,
              entry: proof.chain as never,
              superseded_by: proof.superseded_by,
              supersession: proof.supersession as never
            },
            jwks
          )
        ).toBe(true)
        // Superseding it again is refused: it is already superseded.
        const again = yield* rawCall(keys.alice, "POST", "/v1/process", {
          content: "x",
          supersedes: [old.umo_id]
        })
        expect(again.status).toBe(422)
        expect(again.body.detail).toMatch(/already superseded by/)
        expect(
          (yield* rawCall(keys.alice, "GET", `/v1/memories/${crypto.randomUUID()}/history`)).status
        ).toBe(404)
      })
    )

    it.effect("erases one user's memories with one signed receipt, and nothing without a scope", () =>
      Effect.gen(function* () {
        const user = `erase-${crypto.randomUUID()}`
        const first = yield* capture({ content: "A note about the garden.", user_id: user })
        yield* capture({
          content: "Another note, about the kitchen.",
          user_id: user,
          supersedes: [first.umo_id]
        })
        const keep = yield* capture({ content: "Someone else's note.", user_id: `${user}-other` })
        const none = yield* rawCall(keys.alice, "DELETE", "/v1/memories")
        expect(none.status).toBe(422)
        expect(none.body.detail).toMatch(/user_id, agent_id or session_id/)
        const onlyMetadata = yield* rawCall(
          keys.alice,
          "DELETE",
          `/v1/memories?${query({ metadata: { a: 1 } })}`
        )
        expect(onlyMetadata.status).toBe(422)
        const erased = data(yield* rawCall(keys.alice, "DELETE", `/v1/memories?user_id=${user}`)) as {
          forgotten: number
          umo_ids: Array<string>
          receipt: string
        }
        expect(erased.forgotten).toBe(2)
        const jwks = (yield* rawCall(undefined, "GET", "/.well-known/jwks.json")).body as never
        const claims = yield* Effect.promise(() => verifyReceipt(erased.receipt, jwks))
        expect(claims).toMatchObject({ type: "umo-erasure-receipt", count: 2, umo_ids: erased.umo_ids })
        expect((yield* rawCall(keys.alice, "GET", `/v1/memories/${first.umo_id}`)).status).toBe(404)
        expect((yield* rawCall(keys.alice, "GET", `/v1/memories/${keep.umo_id}`)).status).toBe(200)
        // Bob's memories of a user with the same id are his.
        yield* rawCall(keys.bob, "POST", "/v1/process", { content: "Bob's user.", user_id: user })
        const bobs = data(yield* rawCall(keys.alice, "DELETE", `/v1/memories?user_id=${user}`))
        expect(bobs.forgotten).toBe(0)
        expect(data(yield* rawCall(keys.bob, "GET", `/v1/memories?user_id=${user}`)).total_count).toBe(1)
      })
    )

    it.effect("takes scope, metadata and supersedes as upload form fields", () =>
      Effect.gen(function* () {
        const older = yield* capture({ content: "The old packing list.", user_id: "uploader" })
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const form = new FormData()
        form.append(
          "file",
          new Blob(["The new packing list: tent, stove, maps."], { type: "text/plain" }),
          "list.txt"
        )
        form.append("user_id", "uploader")
        form.append("metadata", JSON.stringify({ trip: "alps" }))
        form.append("supersedes", JSON.stringify([older.umo_id]))
        form.append("infer_updates", "false")
        const response = yield* http.execute(
          HttpClientRequest.post("/v1/upload").pipe(HttpClientRequest.bodyFormData(form))
        )
        const body = (yield* response.json) as { data: { umo_id: string; supersedes: Array<string> } }
        expect(response.status, JSON.stringify(body)).toBe(200)
        const uploaded = body.data
        expect(uploaded.supersedes).toEqual([older.umo_id])
        expect((yield* rawCall(keys.alice, "GET", `/v1/memories/${uploaded.umo_id}`)).body).toMatchObject({
          user_id: "uploader",
          metadata: { trip: "alps" }
        })
        const bad = new FormData()
        bad.append("file", new Blob(["text"], { type: "text/plain" }), "x.txt")
        bad.append("metadata", "{not json")
        const refused = yield* http.execute(
          HttpClientRequest.post("/v1/upload").pipe(HttpClientRequest.bodyFormData(bad))
        )
        expect(refused.status).toBe(422)
      })
    )
  })
})
