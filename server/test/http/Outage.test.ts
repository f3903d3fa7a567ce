import { connect, createServer, type Server, type Socket } from "node:net"
import { it } from "@effect/vitest"
import { UMOClient } from "@umo/client"
import { AccountStore, Ledger, MemoryStore } from "@umo/core"
import { Database } from "@umo/plugins"
import { Effect, Fiber } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { scratchDatabase } from "../../../plugins/test/storage/ScratchDatabase.js"
import { type PrivatePostgres, postgresBin, privatePostgres } from "../support/PrivatePostgres.js"
import { keys, startListening, TestServer } from "../support/TestServer.js"

// Runs where CI provisions PostgreSQL (UMO_TEST_DATABASE_URL).
const url = process.env["UMO_TEST_DATABASE_URL"]

/** Real time, not the test clock: the pool reconnects, and PostgreSQL restarts, on their own schedule. */
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

interface Answer {
  readonly started: number
  readonly status: number
  readonly body: unknown
}

/**
 * Puts an account's captures under load around an outage: four clients capture in a loop (after a
 * 503 a client waits 50 ms, as one backing off would) while `outage` runs once ten have landed,
 * and for 6 s after it. Then checks what an outage may and may not do: every answer is 200 or a
 * 503 `{detail}`; 503s come only from the outage (from 1 s before it began); everything sent 2 s
 * after it ended succeeded, with no server restart; and nothing is half-written — the account has
 * one memory and one chain entry per 200 (and at most one more per capture in flight when the
 * outage began, whose acknowledgement was lost), and its chain is valid. Returns a line for the log.
 */
const captureThrough = (account: "alice" | "bob", outage: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.bearerToken(keys[account]))
    )
    const { account_id } = yield* (yield* AccountStore).ensureAccount(account)
    const answers: Array<Answer> = []
    let stop = false
    const client = (c: number) =>
      Effect.gen(function* () {
        for (let i = 0; !stop; i++) {
          const started = performance.now()
          const response = yield* http.execute(
            HttpClientRequest.post("/v1/process").pipe(
              HttpClientRequest.bodyJsonUnsafe({
                content: `Client ${c}, capture ${i}: the night bus was on time.`
              })
            )
          )
          answers.push({ started, status: response.status, body: yield* response.json })
          if (response.status !== 200) yield* realSleep(50)
        }
      })
    const load = yield* Effect.forkChild(
      Effect.forEach([0, 1, 2, 3], client, { concurrency: 4, discard: true })
    )
    while (answers.filter((a) => a.status === 200).length < 10) yield* realSleep(20)
    const began = performance.now()
    yield* outage
    const ended = performance.now()
    yield* realSleep(6_000)
    stop = true
    yield* Fiber.join(load)

    for (const a of answers) {
      expect([200, 503], JSON.stringify(a.body)).toContain(a.status)
      if (a.status === 503) expect(a.body).toEqual({ detail: expect.stringContaining("unavailable") })
    }
    const refused = answers.filter((a) => a.status === 503)
    const firstAfter = answers.find((a) => a.started >= ended && a.status === 200)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((a) => a.started >= began - 1_000)).toBe(true)
    expect(firstAfter).toBeDefined()
    expect(answers.filter((a) => a.started >= ended + 2_000).map((a) => a.status)).not.toContain(503)
    const landed = answers.length - refused.length
    // A capture whose COMMIT reached the database just as it went away may have been written even
    // though its answer was a 503 (the acknowledgement was lost): only those in flight when the
    // outage began can be, and a retry with an Idempotency-Key then replays instead of writing
    // again. Every memory stored has its chain entry, either way.
    const inDoubt = refused.filter((a) => a.started < began).length
    const stored = (yield* (yield* MemoryStore).list(account_id, { limit: 1, offset: 0 })).total
    expect(stored).toBeGreaterThanOrEqual(landed)
    expect(stored).toBeLessThanOrEqual(landed + inDoubt)
    expect(yield* (yield* Ledger).audit(account_id)).toEqual({ entries: stored, valid: true })
    return (
      `${answers.length} captures under load; ${landed} landed, ${refused.length} answered 503; ` +
      `first 200 ${Math.round(firstAfter!.started - ended)} ms after the database was back; ` +
      `${stored} memories and chain entries (${stored - landed} written though answered 503), chain valid`
    )
  })

/**
 * A TCP relay between the server and PostgreSQL that can be cut and restored: the database going
 * away and coming back, as the server sees it.
 */
const relay = (target: URL, port: number) => {
  const sockets = new Set<Socket>()
  let listener: Server | undefined
  return {
    open: () =>
      new Promise<void>((resolve) => {
        listener = createServer((client) => {
          const upstream = connect(Number(target.port || 5432), target.hostname)
          for (const socket of [client, upstream]) {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
            socket.on("error", () => socket.destroy())
          }
          client.pipe(upstream).pipe(client)
        })
        listener.listen(port, "127.0.0.1", () => resolve())
      }),
    cut: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        listener?.close(() => resolve())
      })
  }
}

describe.runIf(url)("a PostgreSQL outage", () => {
  const database = `umo_outage_${process.pid}`
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", database)
  const port = 40_000 + (process.pid % 20_000)
  // vitest collects this body even when it skips it: no URL then, and nothing is opened.
  const link = relay(new URL(url ?? "postgres://127.0.0.1:5432"), port)

  // Its own database: the server pins its embedder there, apart from the storage contract's.
  beforeAll(async () => {
    await scratch.create()
    await link.open()
  }, 60_000)
  afterAll(async () => {
    await link.cut()
    await scratch.drop()
  }, 60_000)

  it.layer(TestServer({ database: Database.postgres(`postgres://postgres@127.0.0.1:${port}/${database}`) }), {
    timeout: "120 seconds"
  })((it) => {
    it.effect("answers 503 {detail} while the database is away and recovers without a restart", () =>
      Effect.gen(function* () {
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const capture = (content: string) =>
          http.execute(
            HttpClientRequest.post("/v1/process").pipe(
              HttpClientRequest.bodyText(JSON.stringify({ content }), "application/json")
            )
          )
        expect((yield* capture("Before the outage.")).status).toBe(200)
        yield* Effect.promise(link.cut)
        const during = yield* capture("During the outage.")
        expect(during.status).toBe(503)
        expect(during.headers["retry-after"]).toBe("1")
        expect(yield* during.json).toEqual({ detail: expect.stringContaining("unavailable") })
        yield* Effect.promise(link.open)
        let after = yield* capture("After the outage.")
        for (let i = 0; i < 10 && after.status !== 200; i++) {
          yield* realSleep(500)
          after = yield* capture("After the outage.")
        }
        expect(after.status).toBe(200)
      })
    )

    it.effect("leaves exactly one memory per input after batches retried by clients through cuts", () =>
      Effect.gen(function* () {
        const served = yield* Effect.promise(() =>
          startListening({ database: Database.postgres(`postgres://postgres@127.0.0.1:${port}/${database}`) })
        )
        const umo = new UMOClient({
          baseUrl: served.baseUrl,
          apiKey: keys.alice,
          maxRetries: 30,
          // The server's 503s ask for a retry after 1 s.
          maxRetryDelayMs: 1_000
        })
        const inputs = (client: number, batch: number) =>
          Array.from(
            { length: 10 },
            (_, i) => `Client ${client}, batch ${batch}, item ${i}: lanterns over the river.`
          )
        let refused = 0
        let done = false
        const clients = Effect.promise(() =>
          Promise.all(
            [0, 1, 2, 3].map(async (c) => {
              for (let b = 0; b < 8; b++) {
                const results = await umo.batch(inputs(c, b))
                if (results.some((r) => !r.success)) refused += 1
              }
            })
          ).finally(() => (done = true))
        )
        // Short cuts while the batches run: some land mid-transaction, some as a COMMIT is answered.
        let cuts = 0
        const cutter = Effect.gen(function* () {
          // Twelve cuts at most, so every batch also gets a quiet moment to land.
          while (!done && cuts < 12) {
            yield* realSleep(400 + Math.random() * 600)
            if (done) break
            yield* Effect.promise(link.cut)
            cuts += 1
            yield* realSleep(100 + Math.random() * 300)
            yield* Effect.promise(link.open)
          }
        })
        yield* Effect.all([clients, cutter], { concurrency: 2 })
        yield* Effect.promise(served.stop)
        expect(refused).toBe(0)
        expect(cuts).toBeGreaterThan(2)
        const { account_id } = yield* (yield* AccountStore).ensureAccount("alice")
        const store = yield* MemoryStore
        const contents: Array<string> = []
        for (let offset = 0; ; offset += 100) {
          const page = yield* store.list(account_id, { limit: 100, offset })
          contents.push(...page.items.map((m) => m.content))
          if (page.items.length < 100) break
        }
        const expected = [0, 1, 2, 3].flatMap((c) => Array.from({ length: 8 }, (_, b) => inputs(c, b)).flat())
        const batchContents = contents.filter((text) => text.includes("lanterns over the river"))
        expect(batchContents.length).toBe(expected.length)
        expect(new Set(batchContents)).toEqual(new Set(expected))
        expect((yield* (yield* Ledger).audit(account_id)).valid).toBe(true)
        console.log(
          `outage with retrying clients: ${expected.length} items in 32 batches of 10 through ${cuts} cuts; each stored exactly once`
        )
      })
    )

    it.effect("under load: 503 {detail} while the link is cut, 200 after, nothing half-written", () =>
      Effect.gen(function* () {
        const cut = Effect.promise(link.cut).pipe(
          Effect.andThen(realSleep(1_000)),
          Effect.andThen(Effect.promise(link.open))
        )
        console.log(`outage: link cut for 1 s; ${yield* captureThrough("bob", cut)}`)
      })
    )
  })
})

const bin = postgresBin()

describe.runIf(url && bin)("a PostgreSQL restart under load", () => {
  // A cluster of its own, so restarting it does not disturb the server other test files share.
  const port = 40_000 + ((process.pid + 7_919) % 20_000)
  let postgres: PrivatePostgres | undefined
  beforeAll(async () => {
    postgres = await privatePostgres(bin!, port)
  }, 120_000)
  afterAll(() => postgres?.remove(), 60_000)

  it.layer(TestServer({ database: Database.postgres(`postgres://postgres@127.0.0.1:${port}/postgres`) }), {
    timeout: "180 seconds"
  })((it) => {
    it.effect("answers 503 {detail} while PostgreSQL restarts and 200 after, with no server restart", () =>
      Effect.gen(function* () {
        const restart = Effect.promise(() => postgres!.stop()).pipe(
          Effect.andThen(realSleep(1_500)),
          Effect.andThen(Effect.promise(() => postgres!.start()))
        )
        console.log(
          `restart: PostgreSQL stopped (fast) for 1.5 s and started; ${yield* captureThrough("alice", restart)}`
        )
      })
    )
  })
})
