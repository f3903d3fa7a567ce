import { it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { describe, expect } from "vitest"
import { jpegWithDescription, pdfWithText, zipHeader } from "../../../plugins/test/files/samples.js"
import { clientFor, keys, TestServer } from "../support/TestServer.js"

const upload = (parts: ReadonlyArray<readonly [string, Blob | string, string?]>) =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
    )
    const form = new FormData()
    for (const [name, value, filename] of parts) {
      if (typeof value === "string") form.append(name, value)
      else form.append(name, value, filename)
    }
    const response = yield* http.execute(
      HttpClientRequest.post("/v1/upload").pipe(HttpClientRequest.bodyFormData(form))
    )
    return { status: response.status, body: (yield* response.json) as Record<string, unknown> }
  })

const file = (bytes: Uint8Array | string, type: string) =>
  new Blob([bytes] as ConstructorParameters<typeof Blob>[0], { type })

describe("upload", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("captures the text of text, PDF and image uploads, never the bytes", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const note = yield* upload([
          ["file", file("Marie Curie was born in Warsaw.", "text/plain"), "note.txt"]
        ])
        expect(note.status).toBe(200)
        expect(note.body).toMatchObject({
          status: "success",
          data: { format: "text", umo_id: expect.any(String) }
        })
        const id = (note.body["data"] as { umo_id: string }).umo_id
        expect((yield* alice.memories.get({ params: { id } })).source).toBe("upload:note.txt")

        const pdf = yield* upload([
          ["file", file(pdfWithText("The board met in Berlin on Friday."), "application/pdf"), "minutes.pdf"],
          ["source", "board"]
        ])
        expect(pdf.body).toMatchObject({
          data: { format: "pdf", summary: expect.stringContaining("Berlin") }
        })

        const photo = yield* upload([
          ["file", file(jpegWithDescription("Sunset over Lake Geneva"), "image/jpeg"), "p.jpg"]
        ])
        expect(photo.body).toMatchObject({
          data: { format: "image/jpeg", summary: "Sunset over Lake Geneva" }
        })
      })
    )

    it.effect("answers 415 for unknown binaries and 422 for no text or no file part", () =>
      Effect.gen(function* () {
        const zip = yield* upload([["file", file(zipHeader, "application/zip"), "a.zip"]])
        expect(zip).toEqual({ status: 415, body: { detail: expect.stringContaining("application/zip") } })
        const empty = yield* upload([["file", file("   ", "text/plain"), "empty.txt"]])
        expect(empty).toEqual({
          status: 422,
          body: { detail: expect.stringContaining("no extractable text") }
        })
        const missing = yield* upload([["other", "value"]])
        expect(missing.status).toBe(422)
        expect(missing.body).toEqual({ detail: expect.any(String) })
      })
    )

    it.effect("refuses a form field an upload does not take, naming it, and stores nothing", () =>
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const before = (yield* alice.memories.list({ query: { limit: 1 } })).data.total_count
        const typo = yield* upload([
          ["file", file("Dave lives in Nice.", "text/plain"), "dave.txt"],
          ["userid", "dave"]
        ])
        expect(typo).toEqual({ status: 422, body: { detail: expect.stringContaining("userid") } })
        const spaced = yield* upload([
          ["file", file("Dave lives in Nice.", "text/plain"), "dave.txt"],
          ["user_id", " dave"]
        ])
        expect(spaced).toEqual({
          status: 422,
          body: { detail: expect.stringContaining("user_id: must not start or end with whitespace") }
        })
        expect((yield* alice.memories.list({ query: { limit: 1 } })).data.total_count).toBe(before)
        // The same file twice is one memory; asked not to, two.
        const first = yield* upload([["file", file("Eve keeps bees.", "text/plain"), "eve.txt"]])
        const again = yield* upload([["file", file("Eve keeps bees.", "text/plain"), "eve.txt"]])
        const id = (first.body["data"] as { umo_id: string }).umo_id
        expect(again.body["data"]).toMatchObject({ umo_id: id, duplicate_of: id })
        const kept = yield* upload([
          ["file", file("Eve keeps bees.", "text/plain"), "eve.txt"],
          ["dedupe", "false"]
        ])
        expect((kept.body["data"] as { umo_id: string }).umo_id).not.toBe(id)
      })
    )

    it.effect(
      "takes a JSON field left blank, as an HTML form sends it, for none; refuses one that is no JSON",
      () =>
        Effect.gen(function* () {
          const alice = yield* clientFor(keys.alice)
          const blank = yield* upload([
            ["file", file("Fay grows tomatoes.", "text/plain"), "fay.txt"],
            ["metadata", ""],
            ["supersedes", ""]
          ])
          expect(blank.status).toBe(200)
          const id = (blank.body["data"] as { umo_id: string }).umo_id
          const stored = yield* alice.memories.get({ params: { id } })
          expect(stored.metadata).toEqual({})
          expect(stored.supersedes).toEqual([])
          const given = yield* upload([
            ["file", file("Gus grows leeks.", "text/plain"), "gus.txt"],
            ["metadata", JSON.stringify({ plot: "7" })]
          ])
          const gus = (given.body["data"] as { umo_id: string }).umo_id
          expect((yield* alice.memories.get({ params: { id: gus } })).metadata).toEqual({ plot: "7" })
          const broken = yield* upload([
            ["file", file("Hal grows beans.", "text/plain"), "hal.txt"],
            ["metadata", "{plot"]
          ])
          expect(broken).toEqual({ status: 422, body: { detail: expect.stringContaining("metadata") } })
        })
    )

    it.effect("answers 413 beyond 20 MB", () =>
      Effect.gen(function* () {
        const big = yield* upload([
          ["file", file(new Uint8Array(20 * 1024 * 1024 + 1).fill(97), "text/plain"), "big.txt"]
        ])
        expect(big.status).toBe(413)
        expect(big.body).toEqual({ detail: expect.any(String) })
      })
    )
  })
})
