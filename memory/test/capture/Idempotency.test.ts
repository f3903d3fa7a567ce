import { it } from "@effect/vitest"
import { Embedder, makeEmbedder, makePlugin } from "@umo/core"
import { Memory, memoryLayer } from "@umo/memory"
import { Database, defaultPlugins, makeSwitchingEmbedder, SigningKey, StorageStack } from "@umo/plugins"
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

/** A process that did not re-embed: it can load the new model by its id, and reads the pin only when told. */
const FollowingMemory = (() => {
  process.env["UMO_EMBEDDER_FOLLOW_SECONDS"] = "3600"
  return memoryLayer({ plugins: [...defaultPlugins(), lastStage] }).pipe(
    Layer.provideMerge(
      StorageStack.layer({
        database: Database.pglite(),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
        embedder: Layer.succeed(Embedder)(before),
        pinnedEmbedder: (id) => Layer.succeed(Embedder)(id === "test-letters-6" ? after : before)
      })
    )
  )
})()

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
      // Only the store moves (as another process's switch leaves it); this process learns of it
      // when its capture's transaction finds the store pinned to another model.
      switchNow = Effect.orDie(
        sql`UPDATE store_settings SET value = CASE key WHEN 'embedding_model' THEN 'test-letters-6' ELSE '6' END
            WHERE key IN ('embedding_model', 'embedding_dimensions')`
      )
      const memory = yield* Memory
      const { umo_id } = yield* memory.capture({ content: "Grace Hopper found a moth in the relay." })
      expect(switchNow).toBeUndefined()
      expect((yield* Embedder).model.id).toBe("test-letters-6")
      const [stored] = yield* sql<{ model: string; dims: number }>`
        SELECT m.embedding_model AS model, vector_dims(c.embedding) AS dims
        FROM memories m JOIN memory_chunks c USING (account_id, umo_id) WHERE m.umo_id = ${umo_id}`
      expect(stored).toEqual({ model: "test-letters-6", dims: 6 })
      expect(yield* memory.proof(umo_id)).toMatchObject({ valid: true, hash_chain_valid: true })
    }).pipe(as("followed"), Effect.provide(FollowingMemory))
  )
})
