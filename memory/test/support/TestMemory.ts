/** What the memory service's tests share: the service on PGlite with a test embedder, run as an account. */
import { AccountStore, Embedder, makeEmbedder } from "@umo/core"
import { MemoryAccount, memoryLayer, type UmoConfig } from "@umo/memory"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"

/** The memory service with `options`, on an in-memory PGlite, signing with the test key, embedding with `embedder`. */
export const testMemory = (embedder: Layer.Layer<Embedder>, options: UmoConfig = {}) =>
  memoryLayer(options).pipe(
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite(),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
        embedder
      })
    )
  )

/** Runs `effect` as the account named `name` (made on first use). */
export const as =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(
      Effect.flatMap(Effect.service(AccountStore), (accounts) => Effect.orDie(accounts.ensureAccount(name))),
      (account) => Effect.provideService(effect, MemoryAccount, account)
    )

/** An embedder of 8 dimensions from a text's first letters: alike texts are near, and it is instant. */
export const LetterEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.succeed(texts.map((t) => Array.from({ length: 8 }, (_, i) => ((t.charCodeAt(i) || 1) % 7) + 1)))
  })
)
