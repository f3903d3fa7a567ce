import { connect, createServer, type Server, type Socket } from "node:net"
import { it } from "@effect/vitest"
import { AccountStore, Ledger, MemoryStore } from "@umo/core"
import { Database } from "@umo/plugins"
import { Effect, Fiber } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { type PrivatePostgres, postgresBin, privatePostgres } from "../support/PrivatePostgres.js"
import { scratchDatabase } from "../support/ScratchDatabase.js"
import { keys, TestServer } from "../support/TestServer.js"

// Runs where CI provisions PostgreSQL (UMO_TEST_DATABASE_URL).
const url = process.env["UMO_TEST_DATABASE_URL"]

/** Real time, not the test clock: the pool reconnects, and PostgreSQL restarts, on their own schedule. */
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

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

    it.effect("under load: each capture in flight when the link is cut lands whole or answers 503", () =>
      Effect.gen(function* () {
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.bob))
        )
        const { account_id } = yield* (yield* AccountStore).ensureAccount("bob")
        const ledger = yield* Ledger
        const store = yield* MemoryStore
        let landedSoFar = 0
        const capture = (i: number) =>
          Effect.flatMap(
            http.execute(
              HttpClientRequest.post("/v1/process").pipe(
                HttpClientRequest.bodyJsonUnsafe({ content: `Load ${i}: the tram to Lisbon was late again.` })
              )
            ),
            (r) =>
              Effect.map(r.json, (body) => {
                if (r.status === 200) landedSoFar += 1
                return { status: r.status, body }
              })
          )
        const load = yield* Effect.forkChild(
          Effect.forEach(
            Array.from({ length: 100 }, (_, i) => i),
            capture,
            { concurrency: 4 }
          )
        )
        // Cut the link once captures are landing, with more in flight; restore it a second later.
        while (landedSoFar < 5) yield* realSleep(20)
        yield* Effect.promise(link.cut)
        yield* realSleep(1_000)
        yield* Effect.promise(link.open)
        const answers = yield* Fiber.join(load)
        for (const a of answers) {
          expect([200, 503], JSON.stringify(a.body)).toContain(a.status)
          if (a.status === 503) expect(a.body).toEqual({ detail: expect.stringContaining("unavailable") })
        }
        // Recovered without a restart; then nothing is half-written: one memory and one chain
        // entry per capture that answered 200, and the chain is whole.
        let after = yield* capture(100)
        for (let i = 0; i < 10 && after.status !== 200; i++) {
          yield* realSleep(500)
          after = yield* capture(100)
        }
        expect(after.status).toBe(200)
        const landed = answers.filter((a) => a.status === 200).length + 1
        expect((yield* store.list(account_id, { limit: 1, offset: 0 })).total).toBe(landed)
        expect(yield* ledger.audit(account_id)).toEqual({ entries: landed, valid: true })
        console.log(
          `outage: ${answers.length} captures under load; ${landed - 1} landed, ${answers.length - landed + 1} answered 503`
        )
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
        const http = (yield* HttpClient.HttpClient).pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(keys.alice))
        )
        const { account_id } = yield* (yield* AccountStore).ensureAccount("alice")
        const ledger = yield* Ledger
        const store = yield* MemoryStore
        const answers: Array<{ started: number; status: number; body: unknown }> = []
        let stopLoad = false
        // Four clients capture in a loop; after a 503 a client waits 50 ms, as a client backing off would.
        const client = (c: number) =>
          Effect.gen(function* () {
            for (let i = 0; !stopLoad; i++) {
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
        const stopping = performance.now()
        yield* Effect.promise(() => postgres!.stop())
        yield* realSleep(1_500)
        yield* Effect.promise(() => postgres!.start())
        const restarted = performance.now()
        // Load goes on for 6 s after PostgreSQL is back.
        yield* realSleep(6_000)
        stopLoad = true
        yield* Fiber.join(load)

        for (const a of answers) {
          expect([200, 503], JSON.stringify(a.body)).toContain(a.status)
          if (a.status === 503) expect(a.body).toEqual({ detail: expect.stringContaining("unavailable") })
        }
        const refused = answers.filter((a) => a.status === 503)
        const firstAfter = answers.find((a) => a.started >= restarted && a.status === 200)
        // The outage was seen, and it ended: everything sent 2 s after the restart succeeded.
        expect(refused.length).toBeGreaterThan(0)
        expect(firstAfter).toBeDefined()
        expect(answers.filter((a) => a.started >= restarted + 2_000).map((a) => a.status)).not.toContain(503)
        expect(refused.every((a) => a.started >= stopping - 1_000)).toBe(true)
        const landed = answers.filter((a) => a.status === 200).length
        expect((yield* store.list(account_id, { limit: 1, offset: 0 })).total).toBe(landed)
        expect(yield* ledger.audit(account_id)).toEqual({ entries: landed, valid: true })
        console.log(
          `restart: ${answers.length} captures under load while PostgreSQL stopped (fast) for 1.5 s and started again; ` +
            `${landed} landed, ${refused.length} answered 503; first 200 ${Math.round(firstAfter!.started - restarted)} ms ` +
            `after PostgreSQL was back; ${landed} memories and chain entries, chain valid`
        )
      })
    )
  })
})
