import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { clientFor, keys, TestServer } from "./support/TestServer.js"

const dataDir = mkdtempSync(join(tmpdir(), "umo-restart-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe("the server", () => {
  // Each Effect.runPromise builds the whole server on the data directory and shuts it down.
  it("keeps memories, keys and proofs across a restart on one data directory", async () => {
    const captured = await Effect.runPromise(
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        return (yield* alice.memories.process({
          headers: {},
          payload: { content: "Ada Lovelace wrote the first program." }
        })).data
      }).pipe(Effect.provide(TestServer({ dataDir })))
    )
    const after = await Effect.runPromise(
      Effect.gen(function* () {
        const alice = yield* clientFor(keys.alice)
        const memory = yield* alice.memories.get({ params: { id: captured.umo_id } })
        const proof = yield* alice.memories.proof({ params: { id: captured.umo_id } })
        return { memory, proof: proof.data }
      }).pipe(Effect.provide(TestServer({ dataDir })))
    )
    expect(after.memory.content_hash).toBe(captured.content_hash)
    expect(after.proof).toMatchObject({ valid: true, hash_chain_valid: true })
  }, 180_000)
})
