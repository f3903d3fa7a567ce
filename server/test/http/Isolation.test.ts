import { it } from "@effect/vitest"
import { AccountStore, sha256Hex } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { TestServer } from "../support/TestServer.js"

/**
 * Model-based isolation: fast-check runs random interleavings of three accounts' captures (each
 * for one of three end users, the same user ids in every account), supersessions, reads, lists,
 * searches, asks, matches, proofs, explanations, deletes and erasures of a user, filtered by a
 * user or not, against the server, and an in-memory model says what each account and user owns.
 * No call may reveal, change or delete a memory of another account, nor a filtered one another
 * user's: another account's id is a 404 like an unknown one, search and ask only ever cite the
 * caller's (and the filter's) memories, counts are the caller's own, and erasing a user takes
 * that user's memories of that account, all of them and nothing else.
 */

type Http = HttpClient.HttpClient

/** A memory as the model knows it: its text, its user, and whether a newer one superseded it. */
interface Owned {
  readonly content: string
  readonly user: string
  superseded: boolean
}

/** What each account owns: memory id → what it is. */
type Model = Array<Map<string, Owned>>

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
const user = fc.constantFrom("u0", "u1", "u2")
/** The account's current memories, of one user or all. */
const current = (model: Model, a: number, u?: string) =>
  [...model[a]!].filter(([, m]) => !m.superseded && (u === undefined || m.user === u)).map(([id]) => id)
/** An index into every id seen so far: often another account's, sometimes a deleted one. */
const pick = fc.nat(1_000)
const chosen = (real: Real, i: number) =>
  real.seen.length === 0 ? crypto.randomUUID() : real.seen[i % real.seen.length]!
const owns = (model: Model, a: number, id: string) => model[a]!.has(id)
const idsIn = (results: unknown) => (results as Array<{ umo_id: string }>).map((r) => r.umo_id)

class Capture implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly content: string,
    readonly user: string,
    /** Supersede the memory at this index of the ids seen, if given. */
    readonly supersede?: number
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const older = this.supersede === undefined ? undefined : chosen(real, this.supersede)
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/process", {
        content: this.content,
        source: "iso",
        user_id: this.user,
        ...(older === undefined ? {} : { supersedes: [older] })
      })
    )
    if (older !== undefined && !owns(model, this.a, older)) {
      // Another account's memory, or an unknown or deleted one: a 404, and nothing stored.
      expect(reply).toEqual({ status: 404, body: { detail: expect.stringContaining(older) } })
      return
    }
    if (older !== undefined && model[this.a]!.get(older)!.superseded) {
      expect(reply.status).toBe(422)
      return
    }
    expect(reply.status).toBe(200)
    const id = (reply.body.data as { umo_id: string }).umo_id
    const supersedes = (reply.body.data as { supersedes: Array<string> }).supersedes
    // Those the capture named first, then those its facts outdated: the slot sense may read a
    // value even in these made-up words, but only ever in the same account's and user's current memories.
    const named = older === undefined ? [] : [older]
    expect(supersedes.slice(0, named.length)).toEqual(named)
    const ownCurrent = current(model, this.a, this.user)
    for (const inferred of supersedes.slice(named.length)) expect(ownCurrent).toContain(inferred)
    model[this.a]!.set(id, { content: this.content, user: this.user, superseded: false })
    for (const replaced of supersedes) model[this.a]!.get(replaced)!.superseded = true
    real.seen.push(id)
  }
  toString = () =>
    `capture(${this.a}, ${this.user}${this.supersede === undefined ? "" : `, supersedes #${this.supersede}`})`
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
        expect(reply.body).toMatchObject({
          umo_id: id,
          content_hash: sha256Hex(model[this.a]!.get(id)!.content),
          user_id: model[this.a]!.get(id)!.user
        })
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

/** Whether the account's model has `id` current and, with a user, that user's. */
const inScope = (model: Model, a: number, id: string, u: string | undefined) =>
  current(model, a, u).includes(id)

class Search implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly query: string,
    readonly user: string | undefined
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/search", {
        query: this.query,
        limit: 50,
        ...(this.user === undefined ? {} : { user_id: this.user })
      })
    )
    expect(reply.status).toBe(200)
    const data = reply.body.data as { results: unknown; total_count: number }
    for (const id of idsIn(data.results)) expect(inScope(model, this.a, id, this.user)).toBe(true)
    expect(data.total_count).toBeLessThanOrEqual(current(model, this.a, this.user).length)
  }
  toString = () => `search(${this.a}${this.user === undefined ? "" : `, ${this.user}`})`
}

class Ask implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly question: string,
    readonly user: string | undefined
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(
      call(real.keys[this.a]!, "POST", "/v1/ask", {
        question: this.question,
        ...(this.user === undefined ? {} : { user_id: this.user })
      })
    )
    expect(reply.status).toBe(200)
    for (const id of idsIn((reply.body.data as { citations: unknown }).citations))
      expect(inScope(model, this.a, id, this.user)).toBe(true)
  }
  toString = () => `ask(${this.a}${this.user === undefined ? "" : `, ${this.user}`})`
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly user?: string
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(
      call(
        real.keys[this.a]!,
        "GET",
        `/v1/memories?limit=100${this.user === undefined ? "" : `&user_id=${this.user}`}`
      )
    )
    expect(reply.status).toBe(200)
    const data = reply.body.data as { items: unknown; total_count: number }
    const expected = current(model, this.a, this.user)
    expect(data.total_count).toBe(expected.length)
    expect(new Set(idsIn(data.items))).toEqual(new Set(expected))
  }
  toString = () => `list(${this.a}${this.user === undefined ? "" : `, ${this.user}`})`
}

class Erase implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly a: number,
    readonly user: string
  ) {}
  check = () => true
  async run(model: Model, real: Real) {
    const reply = await real.run(call(real.keys[this.a]!, "DELETE", `/v1/memories?user_id=${this.user}`))
    expect(reply.status).toBe(200)
    const data = reply.body.data as { forgotten: number; umo_ids: Array<string> }
    // Every memory of the user in this account, superseded ones too, and nothing of another account.
    const theirs = [...model[this.a]!].filter(([, m]) => m.user === this.user).map(([id]) => id)
    expect(new Set(data.umo_ids)).toEqual(new Set(theirs))
    expect(data.forgotten).toBe(theirs.length)
    for (const id of theirs) model[this.a]!.delete(id)
  }
  toString = () => `erase(${this.a}, ${this.user})`
}

const someUser = fc.option(user, { nil: undefined })
const commands = [
  fc.tuple(account, text, user).map(([a, t, u]) => new Capture(a, t, u)),
  fc.tuple(account, text, user).map(([a, t, u]) => new Capture(a, t, u)),
  fc.tuple(account, text, user, pick).map(([a, t, u, i]) => new Capture(a, t, u, i)),
  fc
    .tuple(account, pick, fc.constantFrom("" as const, "/proof" as const, "/explain" as const))
    .map(([a, i, w]) => new Read(a, i, w)),
  fc.tuple(account, pick).map(([a, i]) => new Delete(a, i)),
  fc.tuple(account, pick, pick).map(([a, i, j]) => new Match(a, i, j)),
  fc.tuple(account, text, someUser).map(([a, q, u]) => new Search(a, q, u)),
  fc.tuple(account, text, someUser).map(([a, q, u]) => new Ask(a, `What about ${q}`, u)),
  fc.tuple(account, someUser).map(([a, u]) => new List(a, u)),
  fc.tuple(account, user).map(([a, u]) => new Erase(a, u))
]

describe("isolation between accounts and their users", () => {
  it.layer(TestServer(), { timeout: "600 seconds" })((it) => {
    it.effect(
      "no interleaving of three accounts' calls crosses accounts or filtered users (model-based)",
      () =>
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
                // Finally every account lists exactly its own memories, and each user's.
                for (const a of [0, 1, 2])
                  for (const u of [undefined, "u0", "u1", "u2"])
                    await new List(a, u).run(model, { run, keys, seen: [] })
              }),
              { numRuns: 25 }
            )
          )
          console.log(`isolation: ${calls} generated calls over 25 runs of three accounts`)
        })
    )
  })
})
