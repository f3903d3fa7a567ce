import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AccountStore, Embedder, MemoryProvenance, MemoryStore, makeEmbedder, StoreError } from "@umo/core"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { capturedPool, recapture, TestEmbedder } from "./fixtures.js"

const dataDir = mkdtempSync(join(tmpdir(), "umo-persist-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

// The production wiring: PGlite in the data directory and the signing key file beside it.
const onDisk = (embedder: Layer.Layer<Embedder>) =>
  StorageStack.layer({
    database: Database.pglite({ dataDir: join(dataDir, "pglite") }),
    signingKey: SigningKey.layer({ dataDir }),
    embedder
  })

describe("a PGlite data directory", () => {
  it("keeps memories, keys and the signing key across a restart", async () => {
    const first = await Effect.runPromise(
      Effect.gen(function* () {
        const accounts = yield* AccountStore
        const store = yield* MemoryStore
        const account = yield* accounts.ensureAccount("persistent")
        yield* accounts.addKey(account.account_id, "umo_persist", "f".repeat(64))
        const umo = recapture((yield* capturedPool)[0]!)
        yield* store.insert(account.account_id, umo)
        return { account: account.account_id, umoId: umo.umo_id }
      }).pipe(Effect.provide(onDisk(TestEmbedder)))
    )
    expect((statSync(join(dataDir, "signing-key.pem")).mode & 0o777).toString(8)).toBe("600")

    const reopened = await Effect.runPromise(
      Effect.gen(function* () {
        const accounts = yield* AccountStore
        const provenance = yield* MemoryProvenance
        const key = yield* accounts.findByKeyHash("f".repeat(64))
        const proof = yield* provenance.proof(first.account, first.umoId)
        return { key, proof }
      }).pipe(Effect.provide(onDisk(TestEmbedder)))
    )
    expect(Option.getOrThrow(reopened.key).account.name).toBe("persistent")
    // Valid after the restart: same key from the data directory, same chain.
    expect(Option.getOrThrow(reopened.proof)).toMatchObject({ valid: true, hash_chain_valid: true })
  })

  it("refuses an embedder other than the one its vectors were made with", async () => {
    const Other = Layer.succeed(Embedder)(
      makeEmbedder({
        model: { id: "another-model", dimensions: 8, maxChunkChars: 100 },
        embedBatch: (texts) => Effect.succeed(texts.map(() => [1, 0, 0, 0, 0, 0, 0, 0]))
      })
    )
    const error = await Effect.runPromise(Effect.flip(Layer.build(onDisk(Other)).pipe(Effect.scoped)))
    expect(error).toBeInstanceOf(StoreError)
    expect((error as StoreError).reason).toBe("EmbedderMismatch")
    expect((error as StoreError).message).toContain("test-bag-of-words")
  })
})
