/**
 * The real server, in-process, for the console's browser test and screenshots: the whole `App`
 * (API and `/console`) on an ephemeral port, with PGlite and the signing key in a fresh temporary
 * data directory, the USE-lite embedder (its weights ship in npm), and freshly generated API keys of
 * two accounts.
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { AccountStore } from "@umo/core"
import { memoryLayer } from "@umo/memory"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { App, createUmoServer } from "@umo/server"
import { Effect, Layer, Logger } from "effect"
import { HttpServer } from "effect/http"
import { build } from "vite"
import * as RateLimiter from "../../../server/src/http/RateLimiter.js"
import { generateKey } from "../../../server/src/keys/ApiKeys.js"

export interface ConsoleServer {
  readonly baseUrl: string
  /** A key of the account "console", created for this server. */
  readonly apiKey: string
  /** A key of another account, "console-2": where the transfer tour imports an export. */
  readonly otherApiKey: string
  readonly stop: () => Promise<void>
}

/** Builds the console into console/dist, where the server serves it from: the test sees the sources as they are. */
export const buildConsole = async () => {
  await build({ configFile: new URL("../../vite.config.ts", import.meta.url).pathname, logLevel: "warn" })
}

/** Starts the server; `stop` ends it and removes its data directory. */
export const startConsoleServer = async (): Promise<ConsoleServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "umo-console-"))
  const key = generateKey()
  const otherKey = generateKey()
  const freshKey = Layer.effectDiscard(
    Effect.gen(function* () {
      const accounts = yield* AccountStore
      for (const [name, { keyId, keyHash }] of [
        ["console", key],
        ["console-2", otherKey]
      ] as const) {
        const { account_id } = yield* accounts.ensureAccount(name)
        yield* accounts.addKey(account_id, keyId, keyHash)
      }
    })
  )
  const server = App.pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => createUmoServer(), { port: 0, host: "127.0.0.1" })),
    Layer.provide(RateLimiter.layer(100_000)),
    // Quiet: a tour makes a few hundred requests, and their log lines would bury a failure.
    Layer.provide(Logger.layer([])),
    Layer.provide(memoryLayer({})),
    Layer.provideMerge(freshKey),
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite({ dataDir: join(dataDir, "pglite") }),
        signingKey: SigningKey.layer({ dataDir }),
        embedder: UseLiteEmbedder.layer()
      })
    )
  )
  const { promise, resolve } = Promise.withResolvers<string>()
  const controller = new AbortController()
  const running = Effect.runPromise(
    Effect.gen(function* () {
      resolve(HttpServer.formatAddress((yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(Effect.provide(server)),
    { signal: controller.signal }
  )
  const baseUrl = await Promise.race([
    promise,
    running.then(
      () => Promise.reject(new Error("the server stopped before listening")),
      (cause: unknown) => Promise.reject(new Error(`the server failed to start: ${String(cause)}`))
    )
  ])
  return {
    baseUrl,
    apiKey: key.key,
    otherApiKey: otherKey.key,
    stop: async () => {
      controller.abort()
      await running.catch(() => {})
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
