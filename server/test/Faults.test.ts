import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { describe, expect, it } from "vitest"
import { scratchDatabase } from "../../plugins/test/storage/ScratchDatabase.js"
import { auditChains } from "./support/Chains.js"
import { type LiveServer, startServer } from "./support/ServerProcess.js"

const root = join(import.meta.dirname, "..", "..")
const key = `umo_faults-${"0".repeat(34)}`
const keys = { [key]: "faults" }
const url = process.env["UMO_TEST_DATABASE_URL"]

/** The chain of the test account, audited with the server's own key file. */
const audit = async (database: ReturnType<typeof Database.postgres>, dataDir: string) => {
  const [chain] = await auditChains(
    ["faults"],
    StorageStack.layer({
      database,
      signingKey: SigningKey.layer({ dataDir }),
      embedder: UseLiteEmbedder.layer()
    })
  )
  return chain!
}

/** A batch of 100 texts, each naming its place, under one idempotency key. */
const batchOf = (round: number) => ({
  texts: Array.from(
    { length: 100 },
    (_, i) => `Round ${round}, entry ${i}: the ferry left the harbour at ${(i % 12) + 1} o'clock.`
  ),
  idempotencyKey: `faults-round-${round}`
})

/** Sends a batch and kills the server (SIGKILL) `afterMs` later, whatever it is doing then. */
const killDuringBatch = async (server: LiveServer, round: number, afterMs: number) => {
  const client = new UMOClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 })
  const { texts, idempotencyKey } = batchOf(round)
  const batch = client.batch(texts, { idempotencyKey }).then(
    () => "finished",
    () => "cut off"
  )
  await new Promise((resolve) => setTimeout(resolve, afterMs))
  await server.kill()
  return batch
}

/** After the restart: every memory listed has a valid proof, and the chain has one entry each. */
const expectWholeItemsOnly = async (server: LiveServer) => {
  const client = new UMOClient({ baseUrl: server.baseUrl, apiKey: key })
  let count = 0
  // Superseded ones too: the update judge may take one entry's hour for a change of another's.
  for await (const item of client.iterate({ includeSuperseded: true })) {
    const proof = await client.verify(item.umoId)
    expect(proof.valid && proof.hashChainValid && !proof.chainTampered, item.umoId).toBe(true)
    count += 1
  }
  return count
}

const scratch = url ? scratchDatabase(url, `umo_faults_${process.pid}`) : undefined
const databases = [
  { name: "PGlite", env: {}, database: (dir: string) => Database.pglite({ dataDir: join(dir, "pglite") }) },
  ...(scratch
    ? [
        {
          name: "PostgreSQL",
          env: { DATABASE_URL: scratch.url },
          database: () => Database.postgres(scratch.url)
        }
      ]
    : [])
]

describe("kill -9 during a batch", () => {
  for (const db of databases) {
    it(`${db.name}: after a restart a batch is there whole or not at all, and its retry stores each item once`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "umo-faults-"))
      if (db.name === "PostgreSQL") await scratch!.create()
      try {
        const env = { ...db.env, UMO_EMBEDDER: "use-lite" }
        // Three kills, each later in its batch; after each, a restart on the same data directory
        // (and database) must start, with nothing half-written.
        let server = await startServer(root, keys, env, { dataDir: dir })
        // How long one batch takes here, to kill the next ones early, midway and late in theirs.
        const started = performance.now()
        await new UMOClient({ baseUrl: server.baseUrl, apiKey: key }).batch(batchOf(0).texts)
        const batchMs = performance.now() - started
        let listed = 100
        const kills: Array<string> = []
        for (const [round, share] of [0.5, 0.95, 1.1].entries()) {
          const outcome = await killDuringBatch(server, round + 1, share * batchMs)
          server = await startServer(root, keys, env, { dataDir: dir })
          // The batch is one unit: after the restart, all of it or none of it.
          const kept = (await expectWholeItemsOnly(server)) - listed
          expect([0, 100]).toContain(kept)
          // The client's retry with the batch's key then leaves exactly one memory per text.
          const { texts, idempotencyKey } = batchOf(round + 1)
          const results = await new UMOClient({ baseUrl: server.baseUrl, apiKey: key }).batch(texts, {
            idempotencyKey
          })
          expect(results.every((r) => r.success)).toBe(true)
          listed = await expectWholeItemsOnly(server)
          expect(listed).toBe(100 * (round + 2))
          kills.push(
            `${Math.round(share * 100)}%: ${outcome}, ${kept} kept, ${kept === 100 ? "replayed" : "stored"} on retry`
          )
        }
        await server.stop()
        const chain = await audit(db.database(dir), dir)
        // One capture entry per memory, and a supersede entry for each the update judge superseded.
        expect(chain.valid).toBe(true)
        expect(chain.entries).toBeGreaterThanOrEqual(listed)
        console.log(
          `faults: ${db.name} killed 3 times into batches of 100 (${Math.round(batchMs)} ms each): ` +
            `${kills.join("; ")}; ${listed} memories, ${chain.entries} chain entries, all proofs valid`
        )
      } finally {
        rmSync(dir, { recursive: true, force: true })
        if (db.name === "PostgreSQL") await scratch!.drop()
      }
    }, 300_000)
  }
})
