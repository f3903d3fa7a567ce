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
const exchange = (parts: ReadonlyArray<string>, pauseMs = 0, toPort = port) =>
  new Promise<{ status: number; body: unknown; ms: number }>((resolve, reject) => {
    const started = performance.now()
    const socket = connect(toPort, "127.0.0.1", async () => {
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

  it("gives a body broken after its request was answered no second answer", async () => {
    // The request is answered at its headers (as the API answers a 401 before reading a body);
    // the chunked body breaks later. A second answer would be read as that of the client's next
    // request on the connection.
    const text = await new Promise<string>((resolve, reject) => {
      let received = ""
      const socket = connect(port, "127.0.0.1", () => {
        socket.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        socket.once("data", () => socket.write("zz\r\nbroken\r\n0\r\n\r\n"))
      })
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("utf8")
      })
      socket.on("error", reject)
      socket.on("close", () => resolve(received))
    })
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 200"])
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

describe("a client that sends its body too slowly", () => {
  // The whole request must arrive within `requestTimeoutMs` (120 s in service); this server has
  // 3 s, so the test does not wait two minutes.
  const slow = { headersTimeoutMs: 2_000, requestTimeoutMs: 3_000 }
  const bodyServer = createUmoServer(slow)
  bodyServer.on("request", (request, response) => {
    let length = 0
    request.on("data", (chunk: Buffer) => {
      length += chunk.length
    })
    request.on("end", () => {
      const body = JSON.stringify({ length })
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": body.length,
        connection: "close"
      })
      response.end(body)
    })
  })
  beforeAll(() => new Promise<void>((resolve) => bodyServer.listen(0, "127.0.0.1", () => resolve())))
  afterAll(() => new Promise<void>((resolve) => bodyServer.close(() => resolve())))
  const head =
    "POST /v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n"

  it("is answered 408 {detail} once the request times out", async () => {
    // The headers at once, then the body a byte every half second: 20 s for 40 bytes.
    const answer = await exchange([head, ..."x".repeat(40)], 500, (bodyServer.address() as AddressInfo).port)
    expect(answer).toMatchObject({ status: 408, body: { detail: "the request did not arrive in time" } })
    expect(answer.ms).toBeGreaterThanOrEqual(slow.requestTimeoutMs - 100)
    expect(answer.ms).toBeLessThan(slow.requestTimeoutMs + 2_500)
  }, 30_000)

  it("is served when the body arrives in time", async () => {
    const answer = await exchange([head, ..."x".repeat(40)], 20, (bodyServer.address() as AddressInfo).port)
    expect(answer).toMatchObject({ status: 200, body: { length: 40 } })
  }, 30_000)
})
