import { it } from "@effect/vitest"
import { verifyProof } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { keys, rawCall, TestServer } from "../support/TestServer.js"

type Data = Record<string, unknown>
type Line = Data & { readonly kind: string }

/** Sends a request with a text body (or none) and answers the status, content type and text. */
const send = (key: string, method: "GET" | "POST", path: string, body?: string, contentType?: string) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    let request = HttpClientRequest.bearerToken(HttpClientRequest.make(method)(path), key)
    if (body !== undefined) request = HttpClientRequest.bodyText(request, body, contentType)
    const response = yield* http.execute(request)
    return {
      status: response.status,
      type: response.headers["content-type"] ?? "",
      text: yield* response.text
    }
  })

const exportOf = (key: string, query = "") =>
  Effect.map(send(key, "GET", `/v1/export${query}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    expect(reply.type).toMatch(/ndjson/)
    return reply.text
  })

const lines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line)

const importInto = (key: string, body: string, query = "", contentType = "application/x-ndjson") =>
  Effect.map(send(key, "POST", `/v1/import${query}`, body, contentType), (reply) => ({
    status: reply.status,
    body: JSON.parse(reply.text) as { data: Data; detail?: string }
  }))

const capture = (key: string, body: Data) =>
  Effect.map(rawCall(key, "POST", "/v1/process", body), (reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return (reply.body as { data: { umo_id: string } }).data.umo_id
  })

describe("export and import over HTTP", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect(
      "exports an account as JSON Lines and imports it into another with its scopes, history and origins",
      () =>
        Effect.gen(function* () {
          const tag = crypto.randomUUID().slice(0, 8)
          const user = `maria-${tag}`
          const madrid = yield* capture(keys.alice, {
            content: `I have lived in Madrid for six years ${tag}.`,
            user_id: user,
            metadata: { topic: "home" },
            timestamp: "2023-01-10T00:00:00Z",
            infer_updates: false
          })
          const lisbon = yield* capture(keys.alice, {
            content: `We moved to Lisbon last week ${tag}.`,
            user_id: user,
            supersedes: [madrid],
            timestamp: "2024-03-02T00:00:00Z"
          })
          const text = yield* exportOf(keys.alice, `?${new URLSearchParams({ user_id: user })}`)
          const exported = lines(text)
          expect(exported[0]).toMatchObject({ kind: "umo-export", version: 1 })
          expect(exported.at(-1)).toEqual({ kind: "end", memories: 2 })
          const memories = exported.filter((l) => l.kind === "memory")
          expect(memories.map((m) => m["umo_id"])).toEqual([madrid, lisbon])
          expect(memories[0]).toMatchObject({
            user_id: user,
            metadata: { topic: "home" },
            superseded_by: lisbon
          })

          const first = yield* importInto(keys.bob, text)
          expect(first.status, JSON.stringify(first.body)).toBe(200)
          expect(first.body.data).toMatchObject({
            format: "umo",
            imported: 2,
            verified: 2,
            linked: 1,
            failed: 0,
            complete: true
          })
          // Run again (an interrupted import resumed): nothing is stored twice.
          const again = yield* importInto(keys.bob, text)
          expect(again.body.data).toMatchObject({ imported: 0, already_imported: 2, failed: 0 })

          const listed = yield* rawCall(
            keys.bob,
            "GET",
            `/v1/memories?${new URLSearchParams({ user_id: user, include_superseded: "true" })}`
          )
          const items = (listed.body as unknown as { data: { items: Array<Data> } }).data.items
          expect(items).toHaveLength(2)
          const copies = yield* Effect.forEach(items, (item) =>
            Effect.map(
              rawCall(keys.bob, "GET", `/v1/memories/${item["umo_id"] as string}`),
              (r) => r.body as Data
            )
          )
          const byOrigin = new Map(copies.map((c) => [(c["imported_from"] as Data)["id"], c]))
          const newer = byOrigin.get(lisbon)!
          const older = byOrigin.get(madrid)!
          expect(older["superseded_by"]).toBe(newer["umo_id"])
          expect(newer["supersedes"]).toEqual([older["umo_id"]])
          expect(older).toMatchObject({ user_id: user, metadata: { topic: "home" } })
          expect(String(older["timestamp"])).toMatch(/^2023-01-10/)
          // The copies are bob's own memories now, each with a proof that holds.
          const proofReply = yield* rawCall(
            keys.bob,
            "GET",
            `/v1/memories/${older["umo_id"] as string}/proof`
          )
          const proof = (proofReply.body as unknown as { data: Data }).data as Data & {
            audit_proof: { content_hash: string; semantic_hash: string }
          }
          expect(proof).toMatchObject({ valid: true, superseded_by: newer["umo_id"] })
          const jwks = (yield* rawCall(undefined, "GET", "/.well-known/jwks.json")).body as never
          expect(
            verifyProof(
              {
                umo_id: older["umo_id"] as string,
                content_hash: proof.audit_proof.content_hash,
                semantic_hash: proof.audit_proof.semantic_hash,
                entry: proof["chain"] as never,
                superseded_by: proof["superseded_by"] as string,
                supersession: proof["supersession"] as never
              },
              jwks
            )
          ).toBe(true)
          // And alice's originals are untouched and still hers alone.
          expect(lines(yield* exportOf(keys.bob, `?${new URLSearchParams({ user_id: user })}`))).toHaveLength(
            4
          )
        })
    )

    it.effect("imports Mem0's get_all JSON", () =>
      Effect.gen(function* () {
        const tag = crypto.randomUUID().slice(0, 8)
        const document = {
          results: [
            {
              id: "f5c3a4e6-0000-4000-8000-000000000001",
              memory: `Likes hiking in the Alps ${tag}`,
              user_id: `alex-${tag}`,
              metadata: { category: "hobbies" },
              created_at: "2024-05-01T10:00:00-07:00"
            },
            {
              id: "f5c3a4e6-0000-4000-8000-000000000002",
              memory: `Is allergic to peanuts ${tag}`,
              user_id: `alex-${tag}`,
              agent_id: "health-bot",
              run_id: "run-1",
              metadata: null,
              created_at: "2024-05-02T10:00:00Z"
            }
          ]
        }
        const reply = yield* importInto(keys.alice, JSON.stringify(document), "", "application/json")
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
        expect(reply.body.data).toMatchObject({ format: "mem0", imported: 2, failed: 0, complete: true })
        const exported = lines(
          yield* exportOf(keys.alice, `?${new URLSearchParams({ user_id: `alex-${tag}` })}`)
        ).filter((l) => l.kind === "memory")
        expect(exported.map((m) => [m["content"], m["agent_id"], m["session_id"]])).toEqual([
          [`Likes hiking in the Alps ${tag}`, null, null],
          [`Is allergic to peanuts ${tag}`, "health-bot", "run-1"]
        ])
        expect(exported[0]).toMatchObject({
          metadata: { category: "hobbies" },
          imported_from: { format: "mem0", id: "f5c3a4e6-0000-4000-8000-000000000001" }
        })
      })
    )

    it.effect("reports a malformed line by its number and skips it, or stops there", () =>
      Effect.gen(function* () {
        const tag = crypto.randomUUID().slice(0, 8)
        const body = [
          JSON.stringify({ id: `${tag}-1`, memory: `first ${tag}`, user_id: tag }),
          "{not json",
          JSON.stringify({ id: `${tag}-3`, memory: `third ${tag}`, user_id: tag })
        ].join("\n")
        const skipped = yield* importInto(keys.alice, body, "?format=mem0")
        expect(skipped.status).toBe(200)
        expect(skipped.body.data, JSON.stringify(skipped.body.data)).toMatchObject({
          imported: 2,
          failed: 1,
          stopped_at: null
        })
        expect((skipped.body.data["failures"] as Array<Data>)[0]).toMatchObject({ line: 2 })
        const stopped = yield* importInto(keys.bob, body, "?format=mem0&on_error=stop")
        expect(stopped.body.data).toMatchObject({ imported: 1, failed: 1, stopped_at: { line: 2 } })
      })
    )

    it.effect("refuses a bad request with a 422 naming it, and never fails on bytes that are no JSON", () =>
      Effect.gen(function* () {
        const badFormat = yield* importInto(keys.alice, "{}", "?format=csv")
        expect(badFormat.status).toBe(422)
        expect(badFormat.body.detail).toMatch(/format/)
        const badExport = yield* send(keys.alice, "GET", "/v1/export?include_superseded=maybe")
        expect(badExport.status).toBe(422)
        const noKey = yield* rawCall(undefined, "GET", "/v1/export")
        expect(noKey.status).toBe(401)
        const noise = String.fromCharCode(...Array.from({ length: 2_000 }, (_, i) => (i * 7919) % 256))
        const garbage = yield* send(keys.alice, "POST", "/v1/import", noise, "application/x-ndjson")
        expect(garbage.status, garbage.text).toBeLessThan(500)
      })
    )

    it.effect(
      "takes an empty or blank body, which any bytes are by /openapi.json, as an import of nothing",
      () =>
        Effect.gen(function* () {
          for (const body of ["", " \n\t\n"]) {
            const blank = yield* importInto(keys.alice, body, "", "text/plain")
            expect(blank.status).toBe(200)
            expect(blank.body.data).toMatchObject({ lines: 0, imported: 0, failed: 0 })
          }
          const one = yield* importInto(keys.alice, "0", "", "text/plain")
          expect(one.status).toBe(200)
          expect(one.body.data).toMatchObject({ lines: 1, failed: 1 })
        })
    )
  })
})
