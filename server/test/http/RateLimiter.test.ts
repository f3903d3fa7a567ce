import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { Database, SigningKey } from "@umo/plugins"
import { Effect, Exit, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { scratchDatabase } from "../../../plugins/test/storage/ScratchDatabase.js"
import {
  type BucketStore,
  type Caller,
  make,
  memoryBuckets,
  type RateDecision,
  sharedBuckets
} from "../../src/http/RateLimiter.js"
import { type LiveServer, startServer } from "../support/ServerProcess.js"
import { embedderCalls, keys, startListening } from "../support/TestServer.js"

const root = join(import.meta.dirname, "..", "..", "..")

const perMinute = 6
const ratePerMs = perMinute / 60_000

/** Keys 0 and 1 exist until revoked; 2 and 3 never did. `key: undefined` sends no key. */
type Event =
  | {
      readonly kind: "request"
      readonly waitMs: number
      readonly key: number | undefined
      readonly address: number
    }
  | { readonly kind: "revoke"; readonly key: number }

const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant("request" as const),
      // Mostly bursts, sometimes long enough waits for buckets to refill.
      waitMs: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 40_000 })
      ),
      key: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      address: fc.integer({ min: 0, max: 1 })
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("revoke" as const), key: fc.integer({ min: 0, max: 1 }) })
  }
)

/** Each run names its keys and addresses afresh, so a shared store starts empty for it. */
let runId = ""
const hashOf = (key: number) => `hash-${runId}-${key}`

/** Where the buckets live in a run: this process's memory, or a database (see `stores`). */
let store: () => Effect.Effect<BucketStore> = () => Effect.sync(memoryBuckets)

/** Drives the limiter as the server does: take, then authentication reports on allowed keyed requests. */
const run = (events: ReadonlyArray<Event>) =>
  Effect.gen(function* () {
    runId = randomUUID()
    const limiter = yield* make(perMinute, yield* store())
    const valid = new Set([0, 1])
    let now = 0
    const decisions: Array<{ at: number; caller: Caller; key: number | undefined; decision: RateDecision }> =
      []
    for (const e of events) {
      if (e.kind === "revoke") {
        valid.delete(e.key)
        continue
      }
      now += e.waitMs
      yield* TestClock.setTime(now)
      const caller = {
        keyHash: e.key === undefined ? undefined : hashOf(e.key),
        address: `10.0.0.${e.address}-${runId}`
      }
      const decision = yield* limiter.take(caller)
      decisions.push({ at: now, caller, key: e.key, decision })
      if (decision.allowed && e.key !== undefined) {
        yield* valid.has(e.key) ? limiter.keyAccepted(hashOf(e.key)) : limiter.keyRefused(hashOf(e.key))
      }
    }
    return decisions
  }).pipe(Effect.provide(TestClock.layer()), Effect.runPromise)

/**
 * The closed form of a token bucket, independent of the limiter's incremental arithmetic: at time
 * t the bucket holds min over earlier times s of (perMinute + rate·(t − s) − requests it allowed
 * in [s, t)), and perMinute when nothing came before.
 */
const tokensAt = (allowedTimes: ReadonlyArray<number>, t: number) =>
  Math.min(
    perMinute,
    ...allowedTimes.map((s, i) => perMinute + ratePerMs * (t - s) - (allowedTimes.length - i))
  )

const url = process.env["UMO_TEST_DATABASE_URL"]
const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_rate_${process.pid}`)
const scope = Scope.makeUnsafe()

/** The memory store always; the PostgreSQL one the replicas share, where CI provisions PostgreSQL. */
const stores: ReadonlyArray<readonly [string, () => Promise<void>, () => Promise<void>]> = [
  ["in memory", async () => {}, async () => {}],
  ...(url
    ? [
        [
          "in PostgreSQL",
          async () => {
            await scratch.create()
            const context = await Effect.runPromise(
              Layer.buildWithScope(Database.postgres(scratch.url), scope)
            )
            store = () => Effect.provide(sharedBuckets, context)
          },
          async () => {
            store = () => Effect.sync(memoryBuckets)
            await Effect.runPromise(Scope.close(scope, Exit.void))
            await scratch.drop()
          }
        ] as const
      ]
    : [])
]

describe.each(stores)("RateLimiter, buckets %s", (_, setUp, tearDown) => {
  beforeAll(setUp, 120_000)
  afterAll(tearDown, 60_000)

  it("allows exactly what a token bucket per key, and per address for unproven keys, allows", async () => {
    let checked = 0
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 120, size: "max" }), async (events) => {
        const decisions = await run(events)
        // What the model knows: which keys have authenticated (and not been refused since), and
        // the times each bucket gave a token.
        const proven = new Set<string>()
        const valid = new Set([0, 1])
        const allowedAt = new Map<string, Array<number>>()
        let d = 0
        for (const e of events) {
          if (e.kind === "revoke") {
            valid.delete(e.key)
            continue
          }
          const { at, caller, decision } = decisions[d++]!
          const buckets =
            caller.keyHash === undefined
              ? [`ip:${caller.address}`]
              : proven.has(caller.keyHash)
                ? [`key:${caller.keyHash}`]
                : [`key:${caller.keyHash}`, `ip:${caller.address}`]
          const tokens = Math.min(...buckets.map((b) => tokensAt(allowedAt.get(b) ?? [], at)))
          // Float rounding may land either side of exactly one token; such cases are not judged.
          if (Math.abs(tokens - 1) > 1e-9) {
            expect(decision.allowed, `request at ${at} ms with ${tokens.toFixed(4)} tokens`).toBe(tokens >= 1)
            checked++
          }
          if (!decision.allowed) {
            expect(decision.retryAfterSeconds).toBeGreaterThan(0)
            continue
          }
          for (const b of buckets) allowedAt.set(b, [...(allowedAt.get(b) ?? []), at])
          if (e.key !== undefined) {
            if (valid.has(e.key)) proven.add(hashOf(e.key))
            else proven.delete(hashOf(e.key))
          }
        }
      }),
      { numRuns: 300 }
    )
    console.log(`rate limiter: ${checked} decisions checked against the closed form`)
  })

  it("keeps a proven key's requests apart from a flood of made-up keys from its address", async () => {
    const flood: Array<Event> = Array.from({ length: 200 }, (_, i) => ({
      kind: "request",
      waitMs: 10,
      key: 2 + (i % 2),
      address: 0
    }))
    const decisions = await run([
      { kind: "request", waitMs: 0, key: 0, address: 0 },
      ...flood,
      ...Array.from({ length: 4 }, (): Event => ({ kind: "request", waitMs: 0, key: 0, address: 0 }))
    ])
    const floodAllowed = decisions.slice(1, 201).filter((x) => x.decision.allowed).length
    // The address had 5 tokens left after the proven key's first request, plus 2 s of refill.
    expect(floodAllowed).toBe(5)
    expect(decisions.slice(201).map((x) => x.decision.allowed)).toEqual([true, true, true, true])
  })
})

describe("ample: a proven key's reads may start before their token is taken", () => {
  it("only while a tenth of its limit was left when this process last took one, less those started since", () =>
    Effect.gen(function* () {
      const limiter = yield* make(100, memoryBuckets())
      const alice: Caller = { keyHash: "alice", address: "10.0.0.1" }
      expect(limiter.ample(alice)).toBe(false)
      yield* limiter.take(alice)
      // Not proven when that token was taken; proven now, but no take seen since.
      expect(limiter.ample(alice)).toBe(false)
      yield* limiter.keyAccepted("alice")
      expect(limiter.ample(alice)).toBe(false)
      expect((yield* limiter.take(alice)).remaining).toBe(98)
      // 98 left as seen, 10 the headroom: calls from 98 down to 10 may start, 89 of them.
      let started = 0
      while (limiter.ample(alice)) started++
      expect(started).toBe(89)
      // A take shows how things stand again (97 left: the started calls took no token here).
      yield* limiter.take(alice)
      expect(limiter.ample(alice)).toBe(true)
      yield* limiter.keyRefused("alice")
      expect(limiter.ample(alice)).toBe(false)
      expect(limiter.ample({ keyHash: undefined, address: "10.0.0.1" })).toBe(false)
    }).pipe(Effect.runPromise))
})

describe("a call that only reads, started while its token is taken, over HTTP", () => {
  /** A take held until `open`; `drained` answers as if other processes had spent every token. */
  interface Hold {
    readonly opened: Promise<void>
    readonly open: () => void
    readonly drained: boolean
    taking: boolean
  }
  const hold = (drained: boolean): Hold => {
    const { promise, resolve } = Promise.withResolvers<void>()
    return { opened: promise, open: resolve, drained, taking: false }
  }
  let held: Hold | undefined
  const inner = memoryBuckets()
  const buckets: BucketStore = {
    take: (names, capacity, perMs, now) =>
      Effect.gen(function* () {
        const h = held
        if (h !== undefined) {
          h.taking = true
          yield* Effect.promise(() => h.opened)
        }
        const tokens = yield* inner.take(names, capacity, perMs, now)
        return h?.drained ? 0 : tokens
      })
  }
  let server: { readonly baseUrl: string; readonly stop: () => Promise<void> }
  beforeAll(async () => {
    server = await startListening({ buckets })
  }, 120_000)
  afterAll(() => server.stop())
  // A test that failed while a take was held lets it go, so the next one starts clear.
  afterEach(() => {
    held?.open()
    held = undefined
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${keys.alice}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>
    }
  }
  const until = async (done: () => boolean) => {
    for (let waited = 0; !done(); waited += 10) {
      if (waited > 20_000) throw new Error("waited 20 s")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  /** The key proves itself, then a take shows it tokens to spare. */
  const proven = async () => {
    for (let i = 0; i < 2; i++) expect((await call("GET", "/v1/account")).status).toBe(200)
  }

  it("a search starts before its token is taken; refused, it answers 429 and none of its results", async () => {
    await proven()
    const before = embedderCalls.count
    const h = hold(true)
    held = h
    const answer = call("POST", "/v1/memories/query", { query: `where did ${randomUUID()} go`, limit: 3 })
    // The query is embedded while the take is held.
    await until(() => embedderCalls.count > before)
    expect(h.taking).toBe(true)
    held = undefined
    h.open()
    const refused = await answer
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({
      detail: expect.stringMatching(/^rate limit of 100000 requests per minute exceeded; retry in \d+ s$/)
    })
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    // Allowed, the same search answers once the token is taken.
    const h2 = hold(false)
    held = h2
    const allowed = call("POST", "/v1/memories/query", { query: `where did ${randomUUID()} go`, limit: 3 })
    await until(() => h2.taking)
    held = undefined
    h2.open()
    const answered = await allowed
    expect(answered.status).toBe(200)
    expect(answered.body).toHaveProperty("data.results")
  }, 60_000)

  it("a call that never reaches the key check is refused as it answers", async () => {
    await proven()
    const h = hold(true)
    held = h
    const answer = call("GET", "/v1/no-such-thing")
    await until(() => h.taking)
    held = undefined
    h.open()
    const refused = await answer
    expect(refused.status).toBe(429)
    expect(refused.body.detail).toMatch(/^rate limit of 100000 requests per minute exceeded/)
  }, 60_000)

  it("a capture waits for its token", async () => {
    await proven()
    const before = embedderCalls.count
    const h = hold(false)
    held = h
    const answer = call("POST", "/v1/memories", { content: "Started learning the cello this spring." })
    await until(() => h.taking)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(embedderCalls.count).toBe(before)
    held = undefined
    h.open()
    expect((await answer).status).toBeLessThan(300)
    expect(embedderCalls.count).toBeGreaterThan(before)
  }, 60_000)
})

describe("rate limit under load, over HTTP", () => {
  const limit = 60
  let server: { readonly baseUrl: string; readonly stop: () => Promise<void> }
  beforeAll(async () => {
    server = await startListening({ ratePerMinute: limit })
  }, 120_000)
  afterAll(() => server.stop())

  const get = async (key: string) => {
    const response = await fetch(`${server.baseUrl}/v1/account`, {
      headers: { authorization: `Bearer ${key}` }
    })
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as { detail?: string }
    }
  }

  it("holds each key to its limit and a flood of made-up keys to its address's, concurrently", async () => {
    // Each key proves itself once; each first request also took a token from the address.
    expect((await get(keys.alice)).status).toBe(200)
    expect((await get(keys.bob)).status).toBe(200)
    const started = performance.now()
    const [alice, madeUp, bob] = await Promise.all([
      Promise.all(Array.from({ length: 300 }, () => get(keys.alice))),
      Promise.all(Array.from({ length: 300 }, () => get(`umo_${randomUUID()}`))),
      Promise.all(Array.from({ length: 30 }, () => get(keys.bob)))
    ])
    // One token a second comes back while the burst runs.
    const refill = Math.ceil(((performance.now() - started) / 60_000) * limit)
    const count = (answers: ReadonlyArray<{ status: number }>, status: number) =>
      answers.filter((a) => a.status === status).length
    console.log(
      `rate limit under load: ${alice.length + madeUp.length + bob.length} concurrent requests in ` +
        `${Math.round(performance.now() - started)} ms; alice ${count(alice, 200)} × 200 and ` +
        `${count(alice, 429)} × 429; made-up keys ${count(madeUp, 401)} × 401 and ${count(madeUp, 429)} × 429; ` +
        `bob ${count(bob, 200)} × 200`
    )

    expect(count(alice, 200) + count(alice, 429)).toBe(300)
    expect(count(alice, 200)).toBeGreaterThanOrEqual(limit - 1)
    expect(count(alice, 200)).toBeLessThanOrEqual(limit - 1 + refill)
    // Made-up keys reach the key lookup only as often as the address's bucket allows.
    expect(count(madeUp, 401) + count(madeUp, 429)).toBe(300)
    expect(count(madeUp, 401)).toBeGreaterThanOrEqual(limit - 2)
    expect(count(madeUp, 401)).toBeLessThanOrEqual(limit - 2 + refill)
    // A proven key from the same address is not slowed by that flood.
    expect(count(bob, 200)).toBe(30)
    for (const refused of [...alice, ...madeUp].filter((a) => a.status === 429)) {
      expect(refused.body.detail).toMatch(/rate limit of 60 requests per minute exceeded/)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    }
  }, 120_000)
})

describe.runIf(url)("rate limit across two server processes on one PostgreSQL", () => {
  const limit = 60
  const database = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_rate_replicas_${process.pid}`)
  const servers: Array<LiveServer> = []
  const key = "umo_rate-replicas-key-0000000000000000000000"
  beforeAll(async () => {
    await database.create()
    const env = {
      DATABASE_URL: database.url,
      UMO_EMBEDDER: "use-lite",
      UMO_SIGNING_KEY: SigningKey.generatePem(),
      UMO_RATE_LIMIT_PER_MINUTE: String(limit)
    }
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 2; i++) servers.push(await startServer(root, { [key]: "rate" }, env))
  }, 240_000)
  afterAll(async () => {
    for (const server of servers) await server.stop()
    await database.drop()
  }, 60_000)

  it("holds a key, and a flood of made-up keys, to one limit across both", async () => {
    const get = async (server: LiveServer, bearer: string) =>
      (await fetch(`${server.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${bearer}` } })).status
    const count = (answers: ReadonlyArray<number>, status: number) =>
      answers.filter((a) => a === status).length
    // The key proves itself in each process; each first request also took a token from the address.
    for (const server of servers) expect(await get(server, key)).toBe(200)
    let started = performance.now()
    const own = await Promise.all(Array.from({ length: 200 }, (_, i) => get(servers[i % 2]!, key)))
    let refill = Math.ceil(((performance.now() - started) / 60_000) * limit)
    expect(count(own, 200) + count(own, 429)).toBe(200)
    // One bucket for both processes: what was left of 60 (not 2 × 60), plus the refill meanwhile.
    expect(count(own, 200)).toBeGreaterThanOrEqual(limit - 2 - 2)
    expect(count(own, 200)).toBeLessThanOrEqual(limit - 2 + refill)
    started = performance.now()
    const madeUp = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(servers[i % 2]!, `umo_${randomUUID()}`))
    )
    refill = Math.ceil(((performance.now() - started) / 60_000) * limit) + 1
    expect(count(madeUp, 401) + count(madeUp, 429)).toBe(200)
    expect(count(madeUp, 401)).toBeGreaterThanOrEqual(limit - 2 - 2)
    expect(count(madeUp, 401)).toBeLessThanOrEqual(limit - 2 + refill)
    console.log(
      `rate limit across 2 processes (${limit}/min, shared): the key got ${count(own, 200)} × 200 and ` +
        `${count(own, 429)} × 429 of 200; made-up keys from its address ${count(madeUp, 401)} × 401 and ` +
        `${count(madeUp, 429)} × 429 of 200`
    )
  }, 120_000)
})
