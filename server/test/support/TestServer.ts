import { generateKeyPairSync } from "node:crypto"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { AccountStore, Embedder, makeEmbedder, sha256Hex } from "@umo/core"
import { memoryLayer, type UmoConfig } from "@umo/memory"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { App, createUmoServer, UmoApi } from "@umo/server"
import { Effect, Layer } from "effect"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import type { SqlClient } from "effect/sql"
import * as RateLimiter from "../../src/http/RateLimiter.js"

/** Keys of two accounts the tests call with. */
export const keys = {
  alice: "umo_test-key-alice-0000000000000000000000",
  bob: "umo_test-key-bob-00000000000000000000000"
}

const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/** How many times the model itself was called: batching shows as fewer calls than items. */
export const embedderCalls = { count: 0 }

/** The real default-free embedder (USE lite), counting its model calls. */
const CountingEmbedder = Layer.effect(
  Embedder,
  Effect.map(UseLiteEmbedder.makeImpl(), (impl) =>
    makeEmbedder({
      ...impl,
      embedBatch: (texts) =>
        Effect.suspend(() => {
          embedderCalls.count += 1
          return impl.embedBatch(texts)
        })
    })
  )
)

/**
 * The storage stack with the real default embedder: PGlite in memory, or in `dataDir` with the
 * signing key file beside it, as the server keeps them.
 */
export const testStorage = (dataDir?: string, database?: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  StorageStack.layer({
    database: database ?? Database.pglite(dataDir ? { dataDir: join(dataDir, "pglite") } : {}),
    signingKey: dataDir ? SigningKey.layer({ dataDir }) : SigningKey.layer({ dataDir: "/nonexistent", pem }),
    embedder: CountingEmbedder
  })

const TestKeys = Layer.effectDiscard(
  Effect.gen(function* () {
    const accounts = yield* AccountStore
    for (const [name, key] of Object.entries(keys)) {
      const { account_id } = yield* accounts.ensureAccount(name)
      yield* accounts.addKey(account_id, `test_${name}`, sha256Hex(key))
    }
  })
)

/** Gives an app layer the Memory service, test keys, in-memory storage and a generous rate limit. */
const withTestServices = <A, E, R>(app: Layer.Layer<A, E, R>, options: TestServerOptions) =>
  app.pipe(
    Layer.provide(
      options.buckets === undefined
        ? RateLimiter.layer(options.ratePerMinute ?? 100_000)
        : Layer.effect(
            RateLimiter.RateLimiter,
            RateLimiter.make(options.ratePerMinute ?? 100_000, options.buckets)
          )
    ),
    Layer.provide(memoryLayer(options.config ?? {})),
    Layer.provideMerge(TestKeys),
    Layer.provideMerge(testStorage(options.dataDir, options.database))
  )

export interface TestServerOptions {
  readonly ratePerMinute?: number
  /** Where the rate limiter keeps its buckets (this process's memory when omitted). */
  readonly buckets?: RateLimiter.BucketStore
  /** Keep the database and signing key in this directory instead of memory. */
  readonly dataDir?: string
  /** Another database than PGlite (e.g. PostgreSQL). */
  readonly database?: Layer.Layer<SqlClient.SqlClient, unknown>
  /** A deployment's configuration (plugins, answer models, file parsers); the embedder stays the test one. */
  readonly config?: UmoConfig
}

/** The app behind the platform's test server, with an HttpClient pointed at it. */
export const TestServer = (options: TestServerOptions = {}) =>
  withTestServices(App.pipe(Layer.provideMerge(NodeHttpServer.layerTest)), options)

/** The app on a real socket (an ephemeral port), for clients that bring their own HTTP stack. */
export const TestListeningServer = (options: TestServerOptions = {}) =>
  withTestServices(
    App.pipe(Layer.provideMerge(NodeHttpServer.layer(() => createUmoServer(), { port: 0 }))),
    options
  )

/**
 * Sends a request as it is, with `key` as its bearer key: for requests the typed client would refuse
 * to encode because they break the schema. Answers the status and the JSON body.
 */
export const rawCall = (
  key: string | undefined,
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = {}
) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    let request = HttpClientRequest.setHeaders(HttpClientRequest.make(method)(path), headers)
    if (key !== undefined) request = HttpClientRequest.bearerToken(request, key)
    if (body !== undefined)
      request = HttpClientRequest.bodyText(request, JSON.stringify(body), "application/json")
    const response = yield* http.execute(request)
    return { status: response.status, body: (yield* response.json) as { readonly detail?: string } }
  })

/** The typed client of the same HttpApi, calling with `key` (or no key). */
export const clientFor = (key?: string) =>
  HttpApiClient.make(UmoApi, {
    transformClient: key === undefined ? undefined : HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  })

/** Starts the app on an ephemeral port for a test file; `stop` interrupts it. */
export const startListening = async (
  options: TestServerOptions = {}
): Promise<{ readonly baseUrl: string; readonly stop: () => Promise<void> }> => {
  const { promise, resolve } = Promise.withResolvers<string>()
  const program = Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    resolve(HttpServer.formatAddress(server.address))
    return yield* Effect.never
  }).pipe(Effect.provide(TestListeningServer(options)))
  const controller = new AbortController()
  const running = Effect.runPromise(program, { signal: controller.signal }).catch(() => {})
  const baseUrl = await Promise.race([
    promise,
    running.then(() => Promise.reject(new Error("server failed")))
  ])
  return {
    baseUrl,
    stop: async () => {
      controller.abort()
      await running
    }
  }
}
