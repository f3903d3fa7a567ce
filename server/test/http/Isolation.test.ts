import { it } from "@effect/vitest"
import { AccountStore, sha256Hex } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { TestServer } from "../support/TestServer.js"

/**
 * Model-based isolation: fast-check runs random interleavings of three accounts' captures,
 * reads, lists, searches, asks, matches, proofs, explanations and deletes against the server,
 * and an in-memory model says what each account owns. No call may reveal, change or delete a
 * memory of another account: another account's id is a 404 like an unknown one, search and ask
 * only ever cite the caller's memories, and counts are the caller's own.
 */

type Http = HttpClient.HttpClient

/** What each account owns: memory id → content. */
type Model = Array<Map<string, string>>

interface Real {
  readonly run: <A>(effect: Effect.Effect<A, unknown, Http>) => Promise<A>
  readonly keys: ReadonlyArray<string>
  /** Every id ever captured in this run (owned, deleted or another account's). */
  readonly seen: Array<string>
}

const call = (key: string, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.bearerToken(key))
    if (body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, body)
    const response = yield* http.execute(request)
    return { status: response.status, body: (yield* response.json) as Record<string, unknown> }
  })

const words = [
  "Paris",
  "budget",
  "guitar",
  "Melanie",
  "sunrise",
  "adoption",
  "Tesla",
  "museum",
  "recipe",
  "marathon"
]
const text = fc
  .array(fc.constantFrom(...words), { minLength: 2, maxLength: 6 })
  .map((ws) => `${ws.join(" ")} ${crypto.randomUUID().slice(0, 8)}.`)

const account = fc.nat(2)
/** An index into every id seen so far: often another account's, sometimes a deleted one. */
const pick = fc.nat(1_000)
const chosen = (real: Real, i: number) =>
  real.seen.length === 0 ? crypto.randomUUID() : real.seen[i % real.seen.length]!
const owns = (model: Model, a: number, id: string) => model[a]!.has(id)
const idsIn = (results: unknown) => (results as Array<{ umo_id: string }>).map((r) => r.umo_id)

class Capture implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly content: string
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/process", { content: this.content, source: "iso" })
    )
    expect(reply.status).toBe(200)
    const id = (reply.body.data as { umo_id: string }).umo_id
    model[this.a]!.set(id, this.content)
    real.seen.push(id)
  }
  toString = () => `capture(${this.a})`
}

class Read implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly i: number,
    readonly what: "" | "/proof" | "/explain"
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = chosen(real, this.i)
    const reply = await real.run(call(real.keys[this.a]!, "GET", `/v1/memories/${id}${this.what}`))
    if (owns(model, this.a, id)) {
      expect(reply.status).toBe(200)
      if (this.what === "")
        expect(reply.body).toMatchObject({ umo_id: id, content_hash: sha256Hex(model[this.a]!.get(id)!) })
    } else {
      expect(reply).toEqual({ status: 404, body: { detail: expect.any(String) } })
    }
  }
  toString = () => `read${this.what}(${this.a}, #${this.i})`
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly i: number
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const id = chosen(real, this.i)
    const reply = await real.run(call(real.keys[this.a]!, "DELETE", `/v1/memories/${id}`))
    if (owns(model, this.a, id)) {
      expect(reply.status).toBe(200)
      model[this.a]!.delete(id)
    } else {
      expect(reply).toEqual({ status: 404, body: { detail: expect.any(String) } })
      // The owner, if any, still has it.
      const owner = model.findIndex((m) => m.has(id))
      if (owner >= 0)
        expect((await real.run(call(real.keys[owner]!, "GET", `/v1/memories/${id}`))).status).toBe(200)
    }
  }
  toString = () => `delete(${this.a}, #${this.i})`
}

class Match implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly i: number,
    readonly j: number
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const [x, y] = [chosen(real, this.i), chosen(real, this.j)]
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/match", { source_ulid: x, candidate_ulid: y, explain: true })
    )
    expect(reply.status).toBe(owns(model, this.a, x) && owns(model, this.a, y) ? 200 : 404)
  }
  toString = () => `match(${this.a}, #${this.i}, #${this.j})`
}

class Search implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly query: string
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/search", { query: this.query, limit: 50 })
    )
    expect(reply.status).toBe(200)
    const data = reply.body.data as { results: unknown; total_count: number }
    for (const id of idsIn(data.results)) expect(owns(model, this.a, id)).toBe(true)
    expect(data.total_count).toBeLessThanOrEqual(model[this.a]!.size)
  }
  toString = () => `search(${this.a})`
}

class Ask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly question: string
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(call(real.keys[this.a]!, "POST", "/v1/ask", { question: this.question }))
    expect(reply.status).toBe(200)
    for (const id of idsIn((reply.body.data as { citations: unknown }).citations))
      expect(owns(model, this.a, id)).toBe(true)
  }
  toString = () => `ask(${this.a})`
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(readonly a: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(call(real.keys[this.a]!, "GET", "/v1/memories?limit=100"))
    expect(reply.status).toBe(200)
    const data = reply.body.data as { items: unknown; total_count: number }
    expect(data.total_count).toBe(model[this.a]!.size)
    expect(new Set(idsIn(data.items))).toEqual(new Set(model[this.a]!.keys()))
  }
  toString = () => `list(${this.a})`
}

const commands = [
  fc.tuple(account, text).map(([a, t]) => new Capture(a, t)),
  fc.tuple(account, text).map(([a, t]) => new Capture(a, t)),
  fc
    .tuple(account, pick, fc.constantFrom("" as const, "/proof" as const, "/explain" as const))
    .map(([a, i, w]) => new Read(a, i, w)),
  fc.tuple(account, pick).map(([a, i]) => new Delete(a, i)),
  fc.tuple(account, pick, pick).map(([a, i, j]) => new Match(a, i, j)),
  fc.tuple(account, text).map(([a, q]) => new Search(a, q)),
  fc.tuple(account, text).map(([a, q]) => new Ask(a, `What about ${q}`)),
  account.map((a) => new List(a))
]

describe("isolation between accounts", () => {
  it.layer(TestServer(), { timeout: "600 seconds" })((it) => {
    it.effect("no interleaving of three accounts' calls crosses accounts (model-based)", () =>
      Effect.gen(function* () {
        const accounts = yield* AccountStore
        const run = Effect.runPromiseWith(yield* Effect.context<Http>())
        let calls = 0
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.commands(commands, { maxCommands: 60, size: "large" }), async (cmds) => {
              // Fresh accounts per run, so the model starts empty.
              const keys = await Effect.runPromise(
                Effect.forEach([0, 1, 2], (i) =>
                  Effect.gen(function* () {
                    const key = `umo_iso-${crypto.randomUUID().replaceAll("-", "")}`
                    const { account_id } = yield* accounts.ensureAccount(`iso-${i}-${crypto.randomUUID()}`)
                    yield* accounts.addKey(
                      account_id,
                      `iso_${crypto.randomUUID().slice(0, 12)}`,
                      sha256Hex(key)
                    )
                    return key
                  })
                )
              )
              const model: Model = [new Map(), new Map(), new Map()]
              await fc.asyncModelRun(() => ({ model, real: { run, keys, seen: [] } }), cmds)
              calls += [...cmds].length
              // Finally every account lists exactly its own memories.
              for (const a of [0, 1, 2]) await new List(a).run(model, { run, keys, seen: [] })
            }),
            { numRuns: 25 }
          )
        )
        console.log(`isolation: ${calls} generated calls over 25 runs of three accounts`)
      })
    )
  })
})
