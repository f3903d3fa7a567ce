import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { createUmoServer, httpLimits } from "@umo/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let port = 0
const server = createUmoServer()
server.on("request", (_request, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end("{}")
})
beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve())))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeAll(() => {
  port = (server.address() as AddressInfo).port
})

/** Writes `parts` (waiting `pauseMs` between them) and reads until the server closes. */
const exchange = (parts: ReadonlyArray<string>, pauseMs = 0) =>
  new Promise<{ status: number; body: unknown; ms: number }>((resolve, reject) => {
    const started = performance.now()
    const socket = connect(port, "127.0.0.1", async () => {
      for (const part of parts) {
        if (socket.destroyed) break
        socket.write(part)
        await new Promise((r) => setTimeout(r, pauseMs))
      }
    })
    let text = ""
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
    })
    socket.on("error", reject)
    socket.on("close", () => {
      try {
        // The first response: status line, headers, then content-length bytes of body.
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
        const start = text.indexOf("\r\n\r\n") + 4
        const length = Number(/content-length: (\d+)/i.exec(text.slice(0, start))?.[1] ?? 0)
        const body = text.slice(start, start + length)
        resolve({ status, body: body ? JSON.parse(body) : undefined, ms: performance.now() - started })
      } catch (error) {
        reject(new Error(`unreadable answer: ${JSON.stringify(text)}`, { cause: error }))
      }
    })
  })

describe("the HTTP server's limits", () => {
  it("answers a request line that is not HTTP with 400 {detail}", async () => {
    expect(await exchange(["GET / NOT-HTTP\r\n\r\n"])).toMatchObject({
      status: 400,
      body: { detail: expect.any(String) }
    })
  })

  it("answers headers over 16 KB with 431 {detail}", async () => {
    const big = `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(httpLimits.maxHeaderBytes + 1)}\r\n\r\n`
    expect(await exchange([big])).toMatchObject({ status: 431, body: { detail: expect.any(String) } })
  })

  it("answers an Expect other than 100-continue with 417 {detail}", async () => {
    const answer = await exchange([
      "POST /v1/process HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}"
    ])
    expect(answer).toMatchObject({ status: 417, body: { detail: expect.stringContaining("teapot") } })
  })

  it(
    "answers a client that stops sending its headers with 408 {detail} once the headers time out",
    async () => {
      // Three header lines, a second apart, then nothing more.
      const answer = await exchange(["GET /health HTTP/1.1\r\n", "Host: x\r\n", "X-Slow: 1\r\n"], 1_000)
      expect(answer).toMatchObject({ status: 408, body: { detail: expect.any(String) } })
      expect(answer.ms).toBeGreaterThanOrEqual(httpLimits.headersTimeoutMs - 100)
    },
    httpLimits.headersTimeoutMs + 30_000
  )
})
