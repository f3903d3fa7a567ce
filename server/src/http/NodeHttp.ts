import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"

/**
 * Limits for slow and malformed clients, enforced by Node before a request reaches the app: the
 * headers must arrive within 20 s and the whole request within 120 s (a 24 MB upload at 2 Mbit/s
 * fits); idle keep-alive connections close after 5 s; headers may take 16 KB.
 */
export const limits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16_384
}

export type HttpLimits = typeof limits

const reasons: Record<string, readonly [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "request headers are larger than 16 KB"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "the request did not arrive in time"],
  ERR_HTTP_HEADERS_TIMEOUT: [408, "the request headers did not arrive in time"]
}

/** Connections already answered and closing: a later parse error on them gets no second answer. */
const answered = new WeakSet<Duplex>()

/** Each connection's latest request and its response: whose bytes a parse error may be in. */
const latest = new WeakMap<Duplex, { readonly request: IncomingMessage; readonly response: ServerResponse }>()

/**
 * Node answers a request it cannot parse (or one too slow) with a bare status line; this answers
 * with the API's `{detail}` instead, then closes the connection. A parse error in the rest of a
 * body the app already answered (a 401 before reading a large upload, say) gets no answer: the
 * client has read one for that request and may be waiting on the connection for its next, and
 * bytes written now would be read as that one's (the fuzz test saw a HEAD answered with a body).
 */
const answerClientError = (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
  // Whether the broken bytes are the rest of the latest request's body (it has not ended).
  const last = latest.get(socket)
  const inLastBody = last !== undefined && !last.request.complete
  if (!socket.writable || answered.has(socket) || (inLastBody && last.response.headersSent))
    return socket.destroy()
  const [status, detail] = reasons[error.code ?? ""] ?? [400, "the request is not valid HTTP"]
  const body = JSON.stringify({ detail })
  // A response to HEAD has no body, even when the rest of the request was broken.
  const head = inLastBody
    ? last.request.method === "HEAD"
    : error.rawPacket?.subarray(0, 5).toString("latin1") === "HEAD "
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${head ? "" : body}`
  )
}

/**
 * Node's HTTP server with the limits above (or others: tests shorten the timeouts) and `{detail}`
 * answers to malformed requests.
 */
export const createUmoServer = (given: Partial<HttpLimits> = {}): Server => {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxHeaderBytes } = { ...limits, ...given }
  const server = createServer({
    // The API does not route by host; a request without one is served rather than refused bare.
    requireHostHeader: false,
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    maxHeaderSize: maxHeaderBytes,
    // How often those timeouts are checked (Node's default, 30 s, would let them run 50 s).
    connectionsCheckingInterval: 1_000
  })
  server.on("request", (request, response) => latest.set(request.socket, { request, response }))
  server.on("clientError", answerClientError)
  // An `Expect` other than 100-continue: Node would answer 417 with no body.
  server.on("checkExpectation", (request, response) => {
    answered.add(request.socket)
    const body = JSON.stringify({
      detail: `unsupported Expect header: ${JSON.stringify(request.headers.expect ?? "")}`
    })
    response.writeHead(417, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      connection: "close"
    })
    response.end(body)
  })
  return server
}
