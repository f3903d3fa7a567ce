import { UMOClient, UMOError } from "@umo/client"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TestListeningServer } from "../../../server/test/support/TestServer.js"

// A real server on an ephemeral port, so the client goes through fetch and a socket.
let baseUrl = ""
let stop: () => Promise<void> = async () => {}

beforeAll(async () => {
  const { promise, resolve } = Promise.withResolvers<string>()
  const program = Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    resolve(HttpServer.formatAddress(server.address))
    return yield* Effect.never
  }).pipe(Effect.provide(TestListeningServer()))
  const controller = new AbortController()
  const running = Effect.runPromise(program, { signal: controller.signal }).catch(() => {})
  baseUrl = await promise
  stop = async () => {
    controller.abort()
    await running
  }
})

afterAll(() => stop())

describe("UMOClient", () => {
  it("reads the base URL and key from options or the environment", () => {
    const client = new UMOClient({ baseUrl: "http://example.test/", apiKey: "umo_x" })
    expect(client.baseUrl).toBe("http://example.test")
    expect(client.apiKey).toBe("umo_x")
  })

  it("checks health against a live server", async () => {
    expect(await new UMOClient({ baseUrl }).health()).toEqual({ status: "healthy" })
  })

  it("raises a UMOError when the service is unreachable", async () => {
    const failure = await new UMOClient({ baseUrl: "http://127.0.0.1:1", timeoutMs: 2000 })
      .health()
      .catch((e) => e)
    expect(failure).toBeInstanceOf(UMOError)
    expect(failure.status).toBeNull()
  })
})
