import { it } from "@effect/vitest"
import {
  AccountStore,
  genesisHash,
  type LedgerEntry,
  type SigningKeySet,
  sha256Hex,
  verifyEntry
} from "@umo/core"
import { Effect } from "effect"
import { HttpClient } from "effect/http"
import { describe, expect } from "vitest"
import { clientFor, rawCall, TestServer } from "../support/TestServer.js"

/** A new account with a key of its own, so this file's chains hold only what it captures. */
const newKey = Effect.fn(function* (name: string) {
  const accounts = yield* AccountStore
  const { account_id } = yield* accounts.ensureAccount(`${name}-${crypto.randomUUID()}`)
  const key = `umo_${name}-${crypto.randomUUID().replaceAll("-", "")}`
  yield* accounts.addKey(account_id, `${name}_${crypto.randomUUID().slice(0, 8)}`, sha256Hex(key))
  return { key, accountId: account_id }
})

describe("GET /v1/account/chain", () => {
  it.layer(TestServer(), { timeout: "180 seconds" })((it) => {
    it.effect("walks the account's chain newest first, a deletion included, and every entry verifies", () =>
      Effect.gen(function* () {
        const { key, accountId } = yield* newKey("carol")
        const carol = yield* clientFor(key)
        const ids: Array<string> = []
        for (const content of [
          "Ada wrote a program.",
          "Grace found a moth.",
          "Alan broke a code.",
          "Tea at five."
        ])
          ids.push((yield* carol.memories.process({ headers: {}, payload: { content } })).data.umo_id)
        yield* carol.memories.forget({ params: { id: ids[1]! } })

        const pages: Array<{
          entries: ReadonlyArray<LedgerEntry>
          has_more: boolean
          next_before: number | null
        }> = []
        let before: number | undefined
        do {
          const response = yield* carol.account.chain({ query: { limit: 2, ...(before ? { before } : {}) } })
          expect(response).toMatchObject({ status: "success", request_id: expect.any(String) })
          pages.push(response.data)
          before = response.data.next_before ?? undefined
        } while (before !== undefined)
        expect(pages.map((p) => [p.entries.length, p.has_more, p.next_before])).toEqual([
          [2, true, 4],
          [2, true, 2],
          [1, false, null]
        ])
        const entries = pages.flatMap((p) => p.entries)
        expect(entries.map((e) => [e.seq, e.kind, e.umo_id])).toEqual([
          [5, "delete", ids[1]],
          [4, "capture", ids[3]],
          [3, "capture", ids[2]],
          [2, "capture", ids[1]],
          [1, "capture", ids[0]]
        ])
        expect(entries.every((e) => e.account_id === accountId)).toBe(true)
        expect((yield* carol.account.chain({ query: {} })).data.entries).toEqual(entries)

        // What a browser does: pin the JWK Set, then check each signature and each link.
        const pinned = (yield* carol.system.signingKeys()) as unknown as SigningKeySet
        entries.forEach((entry, i) => {
          expect(verifyEntry(entry, pinned), `seq ${entry.seq}`).toBe(true)
          expect(entry.prev_hash).toBe(entries[i + 1]?.entry_hash ?? genesisHash)
        })
      })
    )

    it.effect("shows an account none of another account's entries", () =>
      Effect.gen(function* () {
        const carol = yield* clientFor((yield* newKey("carol")).key)
        const dave = yield* clientFor((yield* newKey("dave")).key)
        yield* carol.memories.process({ headers: {}, payload: { content: "Carol's secret plan." } })
        expect((yield* dave.account.chain({ query: {} })).data).toEqual({
          entries: [],
          has_more: false,
          next_before: null
        })
        const { data } = yield* dave.memories.process({
          headers: {},
          payload: { content: "Dave's own note." }
        })
        const chain = (yield* dave.account.chain({ query: { limit: 100 } })).data.entries
        expect(chain.map((e) => [e.seq, e.umo_id])).toEqual([[1, data.umo_id]])
      })
    )

    it.effect("refuses bad query parameters with 422 {detail}, and needs a key", () =>
      Effect.gen(function* () {
        const { key } = yield* newKey("erin")
        for (const [query, rule] of [
          ["limit=0", "limit: Expected a value between 1 and 100"],
          ["limit=101", "limit: Expected a value between 1 and 100"],
          ["limit=1.5", "limit: Expected an integer"],
          ["limit=", "limit"],
          ["before=0", "before: Expected a value between 1 and"],
          ["before=-1", "before: Expected a value between 1 and"],
          ["before=abc", "before"],
          [`before=${"9".repeat(40)}`, "before"]
        ] as const) {
          const error = yield* rawCall(key, "GET", `/v1/account/chain?${query}`)
          expect(error.status, query).toBe(422)
          expect(error.body, query).toEqual({
            detail: expect.stringContaining(`invalid query string: ${rule}`)
          })
        }
        for (const query of ["limit=100", "limit=1&before=1", `before=${Number.MAX_SAFE_INTEGER}`])
          expect((yield* rawCall(key, "GET", `/v1/account/chain?${query}`)).status, query).toBe(200)
        expect(yield* rawCall(undefined, "GET", "/v1/account/chain")).toEqual({
          status: 401,
          body: { detail: expect.stringContaining("missing") }
        })
      })
    )

    it.effect("is in /openapi.json with its limits, marked as an extension", () =>
      Effect.gen(function* () {
        const http = yield* HttpClient.HttpClient
        // biome-ignore lint/suspicious/noExplicitAny: reading an OpenAPI document
        const spec = (yield* Effect.flatMap(http.get("/openapi.json"), (r) => r.json)) as any
        const operation = spec.paths["/v1/account/chain"].get
        expect(operation.description).toContain("extension beyond the v1 specification")
        expect(operation.security).toEqual(expect.arrayContaining([expect.any(Object)]))
        const parameters = Object.fromEntries(
          (operation.parameters as Array<{ name: string; schema: unknown }>).map((p) => [p.name, p.schema])
        )
        expect(parameters["limit"]).toMatchObject({ type: "integer", minimum: 1, maximum: 100 })
        expect(parameters["before"]).toMatchObject({ type: "integer", minimum: 1 })
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "401", "422", "503"]))
      })
    )
  })
})
