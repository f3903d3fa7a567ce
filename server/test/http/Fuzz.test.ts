import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { storableText } from "@umo/core"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../support/TestServer.js"

/**
 * Property-based fuzzing of every call over a real socket: bodies, query strings, path ids,
 * headers, multipart parts, huge and deeply nested JSON, invalid UTF-8 and wrong content types.
 * Whatever arrives, the answer is a status below 500 with a JSON body, `{detail}` on errors, and
 * the server keeps serving. The counts are printed so a CI log shows how much was tried.
 */

interface Fuzzed {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: Uint8Array | undefined
}

interface Answer {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

let baseUrl = ""
let stop: () => Promise<void> = async () => {}
const statuses = new Map<number, number>()
let sent = 0

beforeAll(async () => {
  ;({ baseUrl, stop } = await startListening())
}, 120_000)
afterAll(async () => {
  const counts = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`)
  console.log(`fuzz: ${sent} requests; statuses ${counts.join(", ")}`)
  await stop()
})

/**
 * Sends exactly what was generated (node:http, so bodies and headers are not cleaned up), each on
 * a connection of its own: a request whose framing is broken leaves its connection in a state no
 * client should reuse (the server may still be reading what it sent after answering it), and on a
 * shared one the next request was read the answer to the broken bytes (a HEAD given a body).
 */
const send = (fuzzed: Fuzzed) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(baseUrl)
    const req = httpRequest(
      {
        agent: false,
        host: "127.0.0.1",
        port: url.port,
        method: fuzzed.method,
        path: fuzzed.path,
        headers: {
          ...fuzzed.headers,
          ...(fuzzed.body ? { "content-length": String(fuzzed.body.length) } : {})
        }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            contentType: String(res.headers["content-type"] ?? "")
          })
        )
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(fuzzed.body)
  })

const expectGoodAnswer = (fuzzed: Fuzzed, answer: Answer) => {
  sent += 1
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
  const where = `${fuzzed.method} ${fuzzed.path.slice(0, 200)} → ${answer.status} ${answer.body.slice(0, 300)}`
  expect(answer.status, where).toBeGreaterThanOrEqual(200)
  expect(answer.status, where).toBeLessThan(500)
  if (fuzzed.method === "HEAD") return
  if (answer.status >= 400) {
    expect(answer.contentType, where).toContain("application/json")
    const parsed = JSON.parse(answer.body) as { detail?: unknown }
    expect(typeof parsed.detail, where).toBe("string")
    expect((parsed.detail as string).length, where).toBeGreaterThan(0)
  } else if (answer.status === 200 && !fuzzed.path.startsWith("/docs")) {
    expect(() => JSON.parse(answer.body), where).not.toThrow()
  }
}

const utf8 = (text: string) => new TextEncoder().encode(text)

/** Every byte percent-encoded (encodeURIComponent throws on lone surrogates). */
const percentEncoded = (text: string) =>
  [...utf8(text)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")

// ----- arbitraries -----

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "\u0000", "\uD800", "🙂", "../../etc/passwd", "' OR 1=1 --", "%00", "null")
)

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  anyText,
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, [], {}, -1, 0, 1e308, Number.MAX_SAFE_INTEGER + 2)
)

/** Ids as a caller might send them: real-looking, malformed, hostile. */
const anyId = fc.oneof(
  fc.uuid(),
  fc.constant("00000000-0000-0000-0000-000000000000"),
  anyText.map(percentEncoded),
  fc.string({ maxLength: 300 }).map(percentEncoded),
  fc.constantFrom("%", "%zz", "..", "%2e%2e%2f", "a/b", "x".repeat(5_000))
)

/** A body shaped like the call's, with any field replaced by anything. */
const fieldsOf: Record<string, ReadonlyArray<string>> = {
  "/v1/process": ["content", "source", "timestamp"],
  "/v1/memories": ["content", "source", "timestamp"],
  "/v1/batch": ["items"],
  "/v1/memories/query": ["query", "limit", "source"],
  "/v1/search": ["query", "limit", "source"],
  "/v1/ask": ["question", "model", "provider_key", "context_size"],
  "/v1/match": ["source_ulid", "candidate_ulid", "explain", "threshold"],
  "/v1/memories/{id}": ["content", "metadata", "timestamp"]
}

const shapedBody = (path: string) =>
  fc
    .record(
      Object.fromEntries((fieldsOf[path] ?? ["x"]).map((f) => [f, anyJson])) as Record<
        string,
        fc.Arbitrary<unknown>
      >,
      { requiredKeys: [] }
    )
    .chain((body) =>
      path === "/v1/batch"
        ? fc
            .array(fc.oneof(fc.record({ content: anyJson, source: anyJson, timestamp: anyJson }), anyJson), {
              maxLength: 8
            })
            .map((items) => ({ items }))
        : fc.constant(body)
    )

/** Deeply nested arrays or objects, up to 100,000 levels. */
const deepJson = fc
  .tuple(fc.integer({ min: 100, max: 100_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
  )

/** Large strings in a field (up to 3 MB; the 24 MB limit has its own test). */
const hugeJson = fc
  .tuple(
    fc.constantFrom("content", "query", "question", "items"),
    fc.integer({ min: 50_000, max: 3_000_000 })
  )
  .map(([field, size]) => JSON.stringify({ [field]: "a".repeat(size) }))

const invalidUtf8 = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 2_000 }),
  fc.constant(
    new Uint8Array([
      0x7b, 0x22, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d
    ])
  ),
  fc.constant(new Uint8Array([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]))
)

/** Multipart bodies: the right or wrong part names, text or bytes, odd file names, broken framing. */
const multipart = fc
  .record({
    boundary: fc.constantFrom("----umo-fuzz", "x", "a".repeat(70)),
    parts: fc.array(
      fc.record({
        name: fc.oneof(fc.constantFrom("file", "source", "files"), anyText),
        filename: fc.option(fc.oneof(fc.constantFrom("a.txt", "../../x.pdf", "", "résumé.md"), anyText)),
        type: fc.constantFrom(
          "text/plain",
          "application/pdf",
          "image/jpeg",
          "application/octet-stream",
          "",
          "x/y"
        ),
        data: fc.oneof(fc.string({ maxLength: 200 }).map(utf8), fc.uint8Array({ maxLength: 2_000 }))
      }),
      { maxLength: 4 }
    ),
    broken: fc.boolean()
  })
  .map(({ boundary, parts, broken }) => {
    const chunks: Array<Uint8Array> = []
    for (const p of parts) {
      const disposition = `form-data; name="${p.name}"${p.filename === null ? "" : `; filename="${p.filename}"`}`
      chunks.push(
        utf8(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${p.type}\r\n\r\n`)
      )
      chunks.push(p.data, utf8("\r\n"))
    }
    if (!broken) chunks.push(utf8(`--${boundary}--\r\n`))
    return { boundary: broken ? `${boundary}-other` : boundary, body: Buffer.concat(chunks) }
  })

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "application/xml",
  ""
)

const authorization = fc.oneof(
  { arbitrary: fc.constant(`Bearer ${keys.alice}`), weight: 4 },
  { arbitrary: fc.constant(`Bearer ${keys.bob}`), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      "",
      "Bearer",
      "Bearer ",
      "Basic dXNlcjpwYXNz",
      `bearer ${keys.alice}`,
      `Bearer ${keys.alice}x`
    ),
    weight: 1
  },
  {
    arbitrary: fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, "")}`),
    weight: 1
  }
)

const routes = [
  ["POST", "/v1/process"],
  ["POST", "/v1/memories"],
  ["POST", "/v1/batch"],
  ["POST", "/v1/upload"],
  ["GET", "/v1/memories"],
  ["POST", "/v1/memories/query"],
  ["POST", "/v1/search"],
  ["POST", "/v1/ask"],
  ["GET", "/v1/ask/models"],
  ["GET", "/v1/memories/{id}"],
  ["POST", "/v1/match"],
  ["GET", "/v1/memories/{id}/proof"],
  ["GET", "/v1/memories/{id}/explain"],
  ["DELETE", "/v1/memories/{id}"],
  ["PATCH", "/v1/memories/{id}"],
  ["GET", "/v1/scopes"],
  ["GET", "/v1/account"],
  ["GET", "/health"],
  ["GET", "/.well-known/jwks.json"]
] as const

const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom("limit", "offset", "source"), fc.string({ maxLength: 10 })),
      fc.oneof(
        fc.integer({ min: -1_000, max: 1_000 }).map(String),
        fc.constantFrom("", "1e3", "NaN", "0x10", "9".repeat(40), "-0", "2.5"),
        anyText
      )
    ),
    { maxLength: 4 }
  )
  .map((pairs) => (pairs.length === 0 ? "" : `?${new URLSearchParams(pairs).toString()}`))

/** One request to one of the calls (or to a wrong method or path), with anything in it. */
const request: fc.Arbitrary<Fuzzed> = fc
  .record({
    route: fc.constantFrom(...routes),
    // Mostly the call's own method (null); sometimes another.
    method: fc.oneof(
      { arbitrary: fc.constant(null), weight: 7 },
      { arbitrary: fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"), weight: 1 }
    ),
    id: anyId,
    query: queryString,
    auth: authorization,
    contentType: contentTypes,
    extraHeaders: fc.dictionary(
      fc.oneof(
        {
          arbitrary: fc.constantFrom("x-request-id", "accept", "accept-encoding", "x-forwarded-for"),
          weight: 8
        },
        { arbitrary: fc.constantFrom("content-encoding", "expect", "transfer-encoding", "range"), weight: 1 }
      ),
      fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
      { maxKeys: 3 }
    ),
    kind: fc.constantFrom("shaped", "shaped", "shaped", "json", "deep", "huge", "bytes", "multipart", "none")
  })
  .chain((r) => {
    const path = r.route[1].replace("{id}", r.id)
    const method = r.method ?? r.route[0]
    const headers: Record<string, string> = { ...r.extraHeaders, "content-type": r.contentType }
    if (r.auth !== "") headers.authorization = r.auth
    const withBody = (body: fc.Arbitrary<Uint8Array>, contentType?: string) =>
      body.map(
        (b): Fuzzed => ({
          method,
          path: `${path}${r.query}`,
          headers: contentType ? { ...headers, "content-type": contentType } : headers,
          body: b
        })
      )
    switch (r.kind) {
      case "shaped":
        return withBody(shapedBody(r.route[1]).map((b) => utf8(JSON.stringify(b))))
      case "json":
        return withBody(anyJson.map((b) => utf8(JSON.stringify(b) ?? "")))
      case "deep":
        return withBody(deepJson.map(utf8))
      case "huge":
        return withBody(hugeJson.map(utf8))
      case "bytes":
        return withBody(invalidUtf8)
      case "multipart":
        return multipart.chain(({ boundary, body }) =>
          withBody(fc.constant(new Uint8Array(body)), `multipart/form-data; boundary=${boundary}`)
        )
      default:
        return fc.constant<Fuzzed>({ method, path: `${path}${r.query}`, headers })
    }
  })

/** Writes raw bytes to the server and reads until it closes the connection. */
const sendRaw = (bytes: Uint8Array) =>
  new Promise<string>((resolve, reject) => {
    const url = new URL(baseUrl)
    const socket = connect(Number(url.port), "127.0.0.1", () => socket.write(bytes))
    const chunks: Array<Buffer> = []
    socket.on("data", (c: Buffer) => {
      chunks.push(c)
      // One answer is enough: a keep-alive connection would otherwise stay open.
      const text = Buffer.concat(chunks).toString("latin1")
      const length = /content-length: (\d+)/i.exec(text)?.[1]
      const head = text.indexOf("\r\n\r\n")
      if (head >= 0 && length !== undefined && text.length >= head + 4 + Number(length)) socket.destroy()
    })
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")))
    socket.on("error", reject)
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer in 10 s")))
  })

/** Requests broken at the HTTP level: request lines, header names and values, framing. */
const rawRequest = fc
  .record({
    method: fc.oneof(fc.constantFrom("GET", "POST", "BREW", "G ET", ""), fc.string({ maxLength: 10 })),
    target: fc.oneof(
      fc.constantFrom("/v1/memories", "/health", "*", "http://x/v1/memories", "/\u0000"),
      fc.string({ maxLength: 40 })
    ),
    version: fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "HTTP/1.1 extra", ""),
    headers: fc.array(
      fc.oneof(
        fc.constantFrom(
          `Authorization: Bearer ${keys.alice}`,
          "Content-Length: -1",
          "Content-Length: 10",
          "Content-Length: 1, 2",
          "Transfer-Encoding: chunked",
          "Transfer-Encoding: gzip, chunked",
          "Host",
          ": empty name",
          `X-Long: ${"a".repeat(20_000)}`,
          // Headers a caller's text may reach: U+0000 (refused by the HTTP parser) and a lone
          // surrogate (sent as U+FFFD's bytes).
          "X-Request-Id: nul\u0000here",
          "X-Request-Id: \uD800",
          "Idempotency-Key: \u0000"
        ),
        fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, ""))
      ),
      { maxLength: 5 }
    ),
    body: fc.constantFrom("", "0\r\n\r\n", "zz\r\nhello\r\n0\r\n\r\n", '{"content":"x"}')
  })
  .map((r) => utf8(`${r.method} ${r.target} ${r.version}\r\n${r.headers.join("\r\n")}\r\n\r\n${r.body}`))

describe("fuzzing every call", () => {
  it("answers 2,000 generated requests with a status below 500 and a {detail} on every error", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (fuzzed) => expectGoodAnswer(fuzzed, await send(fuzzed))),
      { numRuns: 2_000 }
    )
    // Still serving, and still correct for a well-formed call.
    const health = await send({ method: "GET", path: "/health", headers: {} })
    expect(health).toMatchObject({ status: 200 })
    expect(JSON.parse(health.body)).toMatchObject({ status: "healthy" })
  }, 900_000)

  it("answers 300 requests broken at the HTTP level with a status below 500 and a {detail}", async () => {
    await fc.assert(
      fc.asyncProperty(rawRequest, async (bytes) => {
        const answer = await sendRaw(bytes)
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1])
        const where = `${new TextDecoder().decode(bytes).slice(0, 200)} → ${answer.slice(0, 300)}`
        sent += 1
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        expect(status, where).toBeGreaterThanOrEqual(200)
        expect(status, where).toBeLessThan(500)
        // The first answer only (a pipelined second request may have been answered too).
        const start = answer.indexOf("\r\n\r\n") + 4
        const length = Number(/content-length: (\d+)/i.exec(answer.slice(0, start))?.[1] ?? answer.length)
        const body = Buffer.from(answer, "utf8")
          .subarray(
            Buffer.byteLength(answer.slice(0, start)),
            Buffer.byteLength(answer.slice(0, start)) + length
          )
          .toString("utf8")
        if (status >= 400 && !bytes.slice(0, 5).every((b, i) => b === utf8("HEAD ")[i]))
          expect(typeof (JSON.parse(body) as { detail?: unknown }).detail, where).toBe("string")
      }),
      { numRuns: 300 }
    )
  }, 300_000)
})

// ----- text PostgreSQL cannot store: U+0000 and unpaired surrogates, everywhere -----

/** Text with U+0000 and lone surrogates mixed into ordinary characters. */
const unstorable = fc
  .array(fc.constantFrom("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "a", "é", "🙂", " ", "Warsaw"), {
    minLength: 1,
    maxLength: 12
  })
  .map((units) => units.join(""))
  .filter((text) => text !== storableText(text))

const json = (value: unknown) => utf8(JSON.stringify(value))

/** Percent-encoded as a browser would, lone surrogates as their WTF-8 bytes (not valid UTF-8). */
const wtf8Encoded = (text: string) =>
  [...text]
    .map((ch) => {
      const unit = ch.charCodeAt(0)
      if (ch.length === 1 && unit >= 0xd800 && unit <= 0xdfff)
        return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join("")
      return encodeURIComponent(ch)
    })
    .join("")

const formPart = (boundary: string, name: string, filename: string | null, data: Uint8Array) => [
  utf8(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === null ? "" : `; filename="${filename}"`}\r\n` +
      "Content-Type: text/plain\r\n\r\n"
  ),
  data,
  utf8("\r\n")
]

/** Every way caller text enters: JSON fields, query parameters, path ids, multipart parts, file bodies. */
const unstorableRequest = fc
  .record({ text: unstorable, where: fc.nat(13), id: fc.uuid() })
  .map(({ text, where, id }): Fuzzed => {
    const auth = { authorization: `Bearer ${keys.alice}` }
    const post = (path: string, body: unknown): Fuzzed => ({
      method: "POST",
      path,
      headers: { ...auth, "content-type": "application/json" },
      body: json(body)
    })
    const upload = (filename: string, source: string | null, file: Uint8Array): Fuzzed => {
      const boundary = "----umo-unstorable"
      const parts = [
        ...formPart(boundary, "file", filename, file),
        ...(source === null ? [] : formPart(boundary, "source", null, utf8(source))),
        utf8(`--${boundary}--\r\n`)
      ]
      return {
        method: "POST",
        path: "/v1/upload",
        headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat(parts)
      }
    }
    switch (where) {
      case 0:
        return post("/v1/process", { content: `Note ${text}`, source: text })
      case 1:
        return post("/v1/memories", { content: text })
      case 2:
        return post("/v1/batch", { items: [{ content: `One ${text}`, source: text }, { content: text }] })
      case 3:
        return post("/v1/memories/query", { query: `where ${text}`, source: text })
      case 4:
        return post("/v1/ask", { question: `Who ${text}?` })
      case 5:
        return post("/v1/ask", { question: "Who?", model: "openai:gpt-4o", provider_key: text })
      case 6:
        return post("/v1/match", { source_ulid: text, candidate_ulid: id })
      case 7:
        return { method: "GET", path: `/v1/memories?source=${wtf8Encoded(text)}`, headers: auth }
      case 8:
        return { method: "GET", path: `/v1/memories/${id}/explain?query=${wtf8Encoded(text)}`, headers: auth }
      case 9:
        return { method: "GET", path: `/v1/memories/${wtf8Encoded(text)}`, headers: auth }
      case 10:
        return upload(`notes-${text}.txt`, null, utf8(`A file about ${text}`))
      case 11:
        return upload("notes.txt", text, utf8("A file with a strange source."))
      case 12:
        // The file's own text, NUL bytes included.
        return upload("raw.txt", null, Buffer.from(`Raw ${text}`, "utf8"))
      default:
        // The file's text, with NUL bytes of its own, sent as application/octet-stream.
        return upload("raw.md", text, Buffer.from(`# Heading ${text}`, "utf8"))
    }
  })

describe("text that PostgreSQL cannot store", () => {
  it("is made storable wherever it enters: never a 5xx, and what is stored is the storable text", async () => {
    let captured = 0
    await fc.assert(
      fc.asyncProperty(unstorableRequest, async (fuzzed) => {
        const answer = await send(fuzzed)
        expectGoodAnswer(fuzzed, answer)
        if (answer.status !== 200 || fuzzed.method !== "POST" || fuzzed.path !== "/v1/process") return
        // What a capture stored holds no U+0000 and no lone surrogate, and its source is found by
        // the same unstorable text.
        const sentSource = (JSON.parse(new TextDecoder().decode(fuzzed.body)) as { source?: string }).source
        const { umo_id } = (JSON.parse(answer.body) as { data: { umo_id: string } }).data
        const memory = await send({ method: "GET", path: `/v1/memories/${umo_id}`, headers: fuzzed.headers })
        const stored = JSON.parse(memory.body) as { source: string | null }
        if (sentSource !== undefined) {
          expect(stored.source).toBe(storableText(sentSource))
          const listed = await send({
            method: "GET",
            path: `/v1/memories?limit=100&source=${encodeURIComponent(storableText(sentSource))}`,
            headers: fuzzed.headers
          })
          expect(listed.body).toContain(umo_id)
        }
        expect(memory.body.includes("\\u0000")).toBe(false)
        expect(JSON.parse(memory.body) as unknown).toBeDefined()
        captured += 1
      }),
      { numRuns: 500 }
    )
    console.log(
      `unstorable text: 500 requests with U+0000 and lone surrogates in every input; ${captured} captures read back`
    )
  }, 600_000)
})
