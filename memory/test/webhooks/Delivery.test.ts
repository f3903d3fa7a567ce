import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { it } from "@effect/vitest"
import { InvalidRequest, Memory, MemoryNotFound } from "@umo/memory"
import { Effect } from "effect"
import { afterAll, describe, expect } from "vitest"
import { as, LetterEmbedder, testMemory } from "../support/TestMemory.js"

// Deliveries looked for every 100 ms, a failed one retried after 1 s (the defaults: 1 s and 5 s).
process.env["UMO_WEBHOOK_POLL_MS"] = "100"
process.env["UMO_WEBHOOK_RETRY_SECONDS"] = "1"

/** A local receiver: every request it got, and it answers 500 to the first `failFirst`. */
const received: Array<{
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly status: number
}> = []
let failFirst = 1
const receiver = createServer((request, response) => {
  let body = ""
  request.on("data", (chunk) => {
    body += chunk
  })
  request.on("end", () => {
    const status = failFirst-- > 0 ? 500 : 200
    received.push({ headers: request.headers, body, status })
    response.writeHead(status).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("webhooks", () => {
  it.layer(testMemory(LetterEmbedder), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect(
      "posts every event in chain order, signed, at least once: a failed delivery is retried",
      () =>
        as("hooked")(
          Effect.gen(function* () {
            const memory = yield* Memory
            const hook = yield* memory.createWebhook({ url })
            expect(hook.secret).toMatch(/^whsec_/)
            const first = yield* memory.capture({
              content: "The shed key hangs by the door.",
              infer_updates: false
            })
            const next = yield* memory.update(first.umo_id, { content: "The shed key is in the drawer." })
            yield* memory.forget(next.umo_id)
            const brief = yield* memory.capture({ content: "Gate code 4511 today.", ttl: 1 })
            yield* sleep(1_100)
            const swept = yield* memory.sweepExpired
            expect(swept.flatMap((s) => s.erasure.umo_ids)).toContain(brief.umo_id)

            const delivered = () => received.filter((r) => r.status === 200)
            for (let waited = 0; delivered().length < 6 && waited < 15_000; waited += 200) yield* sleep(200)
            const events = delivered().map((r) => JSON.parse(r.body))
            expect(events.map((e) => [e.type, e.data.umo_id])).toEqual([
              ["memory.added", first.umo_id],
              ["memory.updated", next.umo_id],
              ["memory.superseded", first.umo_id],
              ["memory.deleted", next.umo_id],
              ["memory.added", brief.umo_id],
              ["memory.expired", brief.umo_id]
            ])
            expect(events[1].data.supersedes).toEqual([first.umo_id])
            expect(events[2].data.superseded_by).toBe(next.umo_id)
            expect(events[5].data.receipt.split(".")).toHaveLength(3)
            // The first delivery failed (500) and was made again: the same event id, once answered.
            expect(received[0]!.status).toBe(500)
            expect(JSON.parse(received[0]!.body).id).toBe(events[0].id)
            // Each delivery is signed over its raw body with the webhook's secret.
            for (const r of received) {
              const [t, v1] = String(r.headers["umo-signature"])
                .split(",")
                .map((p) => p.split("=")[1])
              const expected = createHmac("sha256", hook.secret).update(`${t}.${r.body}`).digest("hex")
              expect(v1).toBe(expected)
              expect(r.headers["umo-webhook-id"]).toBe(JSON.parse(r.body).id)
            }
            const listed = yield* memory.webhooks
            expect(listed.webhooks).toHaveLength(1)
            expect(listed.webhooks[0]).not.toHaveProperty("secret")
            expect(listed.webhooks[0]!.attempts).toBe(0)
            yield* memory.deleteWebhook(hook.webhook_id)
            expect((yield* memory.webhooks).webhooks).toEqual([])
          })
        ),
      60_000
    )

    it.effect("refuses a URL that is not http(s), an unknown event, and an unknown webhook", () =>
      as("hook-refusals")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const bad = yield* Effect.flip(memory.createWebhook({ url: "ftp://example.com/x" }))
          expect(bad).toBeInstanceOf(InvalidRequest)
          expect((bad as InvalidRequest).detail).toContain("url")
          const event = yield* Effect.flip(memory.createWebhook({ url, events: ["memory.renamed" as never] }))
          expect((event as InvalidRequest).detail).toContain("events")
          expect(
            yield* Effect.flip(memory.deleteWebhook("00000000-0000-7000-8000-000000000000"))
          ).toBeInstanceOf(MemoryNotFound)
        })
      )
    )
  })
})
