import { createPrivateKey } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import { sha256Hex } from "@umo/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateKey } from "../src/keys/ApiKeys.js"
import { type LiveServer, startServer } from "./support/ServerProcess.js"

/**
 * No secret in logs or responses: the real server process (`npm start`'s entry point) is called
 * the way callers get things wrong — keys in odd headers, in the query string and in paths,
 * another account's key, made-up and overlong keys, a cloud provider that quotes the key it was
 * given — and every answer (status line, headers, body) and every line it prints is searched for
 * the API keys, their hashes, the provider key and the signing key.
 */

const root = join(import.meta.dirname, "..", "..")
const alice = generateKey()
const bob = generateKey()
const providerKey = `sk-proj-${generateKey().key.slice(4)}`

/** Answers like OpenAI does to a bad key: 401, and a message that quotes the key it got. */
const refusingProvider = () =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const server = createServer((request, response) => {
      const key = (request.headers.authorization ?? "").replace(/^Bearer /, "")
      request.resume()
      response.writeHead(401, { "content-type": "application/json" })
      response.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key"
          }
        })
      )
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        server,
        url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`
      })
    })
  })

/** The fields of the answers this test reads. */
interface Answer {
  readonly data?: { readonly umo_id: string }
  readonly detail?: string
}

describe("secrets", () => {
  let server: LiveServer
  let provider: { server: Server; url: string }
  let signingSecrets: ReadonlyArray<string>
  const answers: Array<string> = []

  beforeAll(async () => {
    provider = await refusingProvider()
    server = await startServer(
      root,
      { [alice.key]: "alice", [bob.key]: "bob" },
      { OPENAI_BASE_URL: provider.url },
      { keepOutput: true }
    )
    const pem = readFileSync(join(server.dataDir, "signing-key.pem"), "utf8")
    const jwk = createPrivateKey(pem).export({ format: "jwk" })
    // The PEM's base64 lines and the private scalar as a JWK would show it.
    signingSecrets = [
      ...pem.split("\n").filter((line) => line.length > 20 && !line.startsWith("-----")),
      jwk.d!
    ]
  }, 240_000)

  afterAll(async () => {
    await server?.stop()
    provider?.server.close()
  })

  const call = async (path: string, init: RequestInit & { key?: string } = {}) => {
    const headers = new Headers(init.headers)
    if (init.key !== undefined) headers.set("authorization", `Bearer ${init.key}`)
    if (typeof init.body === "string") headers.set("content-type", "application/json")
    const response = await fetch(`${server.baseUrl}${path}`, { ...init, headers })
    const body = await response.text()
    answers.push(`${response.status} ${response.statusText}\n${[...response.headers].join("\n")}\n\n${body}`)
    return { status: response.status, json: (body.length > 0 ? JSON.parse(body) : {}) as Answer }
  }
  const post = (path: string, key: string, body: unknown) =>
    call(path, { method: "POST", key, body: JSON.stringify(body) })

  it("never shows an API key, its hash, a provider key or the signing key", async () => {
    const captured = await post("/v1/memories", alice.key, { content: "Alice keeps her bike in the shed." })
    expect(captured.status).toBe(200)
    const id = captured.json.data!.umo_id
    expect(
      (await post("/v1/process", alice.key, { content: "The shed door sticks in winter." })).status
    ).toBe(200)
    expect(
      (await post("/v1/batch", alice.key, { items: [{ content: "Rain on Tuesday." }, {}] })).status
    ).toBe(200)
    const form = new FormData()
    form.set("file", new Blob(["Notes: the bike needs a new chain."], { type: "text/plain" }), "notes.txt")
    expect((await call("/v1/upload", { method: "POST", key: alice.key, body: form })).status).toBe(200)
    for (const path of ["/v1/account", "/v1/memories", `/v1/memories/${id}`, `/v1/memories/${id}/proof`])
      expect((await call(path, { key: alice.key })).status).toBe(200)
    expect((await call(`/v1/memories/${id}/explain`, { key: alice.key })).status).toBe(200)
    expect((await post("/v1/memories/query", alice.key, { query: "bike" })).status).toBe(200)
    expect((await post("/v1/search", alice.key, { query: "shed" })).status).toBe(200)
    expect((await post("/v1/ask", alice.key, { question: "Where is the bike?" })).status).toBe(200)
    expect((await call("/v1/ask/models", { key: alice.key })).status).toBe(200)
    expect((await post("/v1/match", alice.key, { source_ulid: id, candidate_ulid: id })).status).toBe(200)
    for (const path of ["/health", "/.well-known/jwks.json"]) expect((await call(path)).status).toBe(200)

    // The cloud provider refuses the caller's key and quotes it back.
    const refused = await post("/v1/ask", alice.key, {
      question: "Where is the bike?",
      model: "openai:gpt-4o",
      provider_key: providerKey
    })
    expect(refused.status).toBe(502)
    expect(refused.json.detail).toContain("Incorrect API key provided: [provider_key]")

    // Keys where they do not belong, and keys that are not keys.
    const misplaced: Array<[string, RequestInit & { key?: string }]> = [
      ["/v1/account", { key: bob.key.slice(0, 20) }],
      ["/v1/account", { key: `${alice.key}x` }],
      ["/v1/account", { key: alice.key.repeat(20) }],
      ["/v1/account", { headers: { authorization: `Basic ${btoa(`${alice.key}:`)}` } }],
      ["/v1/account", { headers: { authorization: `Token ${alice.key}` } }],
      ["/v1/account", { headers: { "x-api-key": alice.key } }],
      [`/v1/account?api_key=${alice.key}`, {}],
      [`/v1/memories/${alice.key}`, { key: alice.key }],
      [`/v1/memories/${alice.key}/proof`, { key: bob.key }],
      [`/v1/${alice.key}`, { key: alice.key }],
      [`/v1/memories/${id}`, { key: bob.key }],
      [`/v1/memories/${id}`, { key: bob.key, method: "DELETE" }]
    ]
    const statuses = []
    for (const [path, init] of misplaced) statuses.push((await call(path, init)).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 404, 404, 404, 404, 404])
    expect((await post("/v1/memories", alice.key, { content: "" })).status).toBe(422)
    expect((await call(`/v1/memories/${id}`, { key: alice.key, method: "DELETE" })).status).toBe(200)

    const logs = server.output()
    const secrets = [
      alice.key,
      bob.key,
      alice.key.slice(12),
      bob.key.slice(12),
      providerKey,
      ...signingSecrets
    ]
    const hashes = [alice.keyHash, bob.keyHash, sha256Hex(providerKey)]
    for (const secret of [...secrets, ...hashes]) {
      expect(logs.split("\n").filter((line) => line.includes(secret))).toEqual([])
      expect(answers.filter((answer) => answer.includes(secret))).toEqual([])
    }
    // The log is there to be searched: a line per request (and the start-up's health checks),
    // with a key pasted into a path cut to its public id.
    const lines = logs.split("\n").filter((line) => line.includes('"message":"request"'))
    expect(lines.length).toBeGreaterThanOrEqual(answers.length)
    expect(logs).toContain(`"path":"/v1/memories/${alice.key.slice(0, 12)}[secret]/proof"`)
    console.log(
      `secrets: ${answers.length} answers and ${logs.split("\n").length} log lines searched for ` +
        `${secrets.length + hashes.length} secrets and hashes (2 API keys, a provider key, the signing key); none found`
    )
  }, 120_000)

  it("does not print a key whose account was left out of UMO_API_KEYS", async () => {
    const failure = await startServer(
      root,
      {},
      { UMO_API_KEYS: `bob=bob,${alice.key}` },
      { keepOutput: true }
    ).then(
      (started) => started.stop().then(() => "started"),
      (error: Error) => error.message
    )
    expect(failure).toContain("UMO_API_KEYS: entry 2 is not key=account")
    expect(failure).not.toContain(alice.key)
  }, 240_000)
})
