import { it } from "@effect/vitest"
import { Embedder, makeEmbedder, makePlugin } from "@umo/core"
import { Memory, memoryLayer, Unavailable } from "@umo/memory"
import {
  Database,
  defaultPlugins,
  makeSwitchingEmbedder,
  Reembedder,
  SigningKey,
  StorageStack
} from "@umo/plugins"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"
import { as } from "../support/TestMemory.js"

/** Letters as a vector of `dims`: equal texts embed equally, and nothing is downloaded. */
const letters = (id: string, dims: number) =>
  makeEmbedder({
    model: { id, dimensions: dims, maxChunkChars: 200 },
    embedBatch: (texts) =>
      Effect.succeed(
        texts.map((t) => Array.from({ length: dims }, (_, i) => ((t.charCodeAt(i) || 1) % 7) + 1))
      )
  })

const before = letters("test-letters", 8)
const after = letters("test-letters-6", 6)
const switching = makeSwitchingEmbedder(before)

/** Run once by the last stage, after the embedding: a re-embedding's switch landing right then. */
let switchNow: Effect.Effect<void> | undefined
const lastStage = makePlugin({
  name: "switch-lands-here",
  version: "1.0.0",
  stage: "validate",
  run: (draft) =>
    Effect.as(
      Effect.suspend(() => {
        const run = switchNow
        switchNow = undefined
        return run ?? Effect.void
      }),
      draft
    )
})

const TestMemory = memoryLayer({ plugins: [...defaultPlugins(), lastStage] }).pipe(
  Layer.provideMerge(
    StorageStack.layer({
      database: Database.pglite(),
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
      embedder: Layer.succeed(Embedder)(switching.embedder)
    })
  )
)

/**
 * A process that did not re-embed, which reads the pin only when told (PGlite: no periodic
 * reading): `installed` says whether it can load the new model by its id.
 */
const following = (installed: boolean) =>
  memoryLayer({ plugins: [...defaultPlugins(), lastStage] }).pipe(
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite(),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
        embedder: Layer.succeed(Embedder)(before),
        pinnedEmbedder: (id) =>
          id !== "test-letters-6"
            ? Layer.succeed(Embedder)(before)
            : installed
              ? Layer.succeed(Embedder)(after)
              : Layer.effect(Embedder, Effect.fail(new Error("test-letters-6 is not installed")))
      })
    )
  )

/** Another process's switch, as it leaves the store: pinned to the new model. */
const movePin = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  switchNow = Effect.orDie(
    sql`UPDATE store_settings SET value = CASE key WHEN 'embedding_model' THEN 'test-letters-6' ELSE '6' END
        WHERE key IN ('embedding_model', 'embedding_dimensions')`
  )
})

describe("a capture meeting a re-embedding's switch", () => {
  it.effect("is embedded again with the model the store moved to, and stored with it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // What the switch does to the store (SqlReembedding.switchTo: here with no memories to move)
      // and to the process's embedder, after the capture's memory was embedded with the old model.
      switchNow = Effect.orDie(
        Effect.andThen(
          sql`UPDATE store_settings SET value = CASE key WHEN 'embedding_model' THEN 'test-letters-6' ELSE '6' END
              WHERE key IN ('embedding_model', 'embedding_dimensions')`,
          Effect.sync(() => switching.switchTo(after))
        )
      )
      const memory = yield* Memory
      const { umo_id } = yield* memory.capture({ content: "Ada Lovelace wrote the first program." })
      expect(switchNow).toBeUndefined()
      const [stored] = yield* sql<{ model: string; dims: number }>`
        SELECT m.embedding_model AS model, vector_dims(c.embedding) AS dims
        FROM memories m JOIN memory_chunks c USING (account_id, umo_id) WHERE m.umo_id = ${umo_id}`
      expect(stored).toEqual({ model: "test-letters-6", dims: 6 })
      expect(yield* memory.proof(umo_id)).toMatchObject({ valid: true, hash_chain_valid: true })
    }).pipe(as("switch"), Effect.provide(TestMemory))
  )

  it.effect("made by another process: this one follows the store's model, then captures with it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Only the store moves; this process learns of it when its capture's transaction finds the
      // store pinned to another model.
      yield* movePin
      const memory = yield* Memory
      const { umo_id } = yield* memory.capture({ content: "Grace Hopper found a moth in the relay." })
      expect(switchNow).toBeUndefined()
      expect((yield* Embedder).model.id).toBe("test-letters-6")
      const [stored] = yield* sql<{ model: string; dims: number }>`
        SELECT m.embedding_model AS model, vector_dims(c.embedding) AS dims
        FROM memories m JOIN memory_chunks c USING (account_id, umo_id) WHERE m.umo_id = ${umo_id}`
      expect(stored).toEqual({ model: "test-letters-6", dims: 6 })
      expect(yield* memory.proof(umo_id)).toMatchObject({ valid: true, hash_chain_valid: true })
    }).pipe(as("followed"), Effect.provide(following(true)))
  )

  it.effect("made by another process to a model this one cannot load: a 503 saying so, nothing stored", () =>
    Effect.gen(function* () {
      yield* movePin
      const memory = yield* Memory
      const refused = yield* Effect.flip(
        memory.capture({ content: "Grace Hopper found a moth in the relay." })
      )
      expect(refused).toBeInstanceOf(Unavailable)
      expect(yield* (yield* Reembedder).status).toMatchObject({
        from: "test-letters",
        to: "test-letters-6",
        state: "failed",
        detail: expect.stringContaining("test-letters-6 is not installed")
      })
      expect((yield* memory.list({})).items).toEqual([])
    }).pipe(as("stuck"), Effect.provide(following(false)))
  )
})
