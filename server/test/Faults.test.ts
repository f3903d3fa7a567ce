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
const audit = async (database: ReturnType<typeof Database.pglite>, dataDir: string) => {
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

/**
 * Sends a batch of 100 and kills the server (SIGKILL) once at least `atLeast` of it is stored
 * (on top of the `before` memories the account had).
 */
const killDuringBatch = async (server: LiveServer, before: number, atLeast: number) => {
  const client = new UMOClient({ baseUrl: server.baseUrl, apiKey: key, maxRetries: 0 })
  let done = false
  const batch = client
    .batch(
      Array.from(
        { length: 100 },
        (_, i) => `Entry ${before + i}: the ferry left the harbour at ${(i % 12) + 1} o'clock.`
      )
    )
    .then(
      () => "finished",
      () => "cut off"
    )
    .finally(() => {
      done = true
    })
  let stored = 0
  while (stored < atLeast && !done) {
    stored = (await client.list({ limit: 1 })).totalCount - before
    if (stored < atLeast) await new Promise((r) => setTimeout(r, 10))
  }
  await server.kill()
  return { outcome: await batch, storedBeforeKill: stored }
}

/** After the restart: every memory listed has a valid proof, and the chain has one entry each. */
const expectWholeItemsOnly = async (server: LiveServer) => {
  const client = new UMOClient({ baseUrl: server.baseUrl, apiKey: key })
  let count = 0
  for await (const item of client.iterate()) {
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
    it(`${db.name}: after a restart every item is wholly captured, with its chain entry, or absent`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "umo-faults-"))
      if (db.name === "PostgreSQL") await scratch!.create()
      try {
        const env = { ...db.env, UMO_EMBEDDER: "use-lite" }
        // Three kills, each later in its batch; after each, a restart on the same data directory
        // (and database) must start, with nothing half-written.
        let server = await startServer(root, keys, env, { dataDir: dir })
        let listed = 0
        const kills: Array<string> = []
        for (const atLeast of [1, 10, 30]) {
          const { outcome, storedBeforeKill } = await killDuringBatch(server, listed, atLeast)
          expect(outcome).toBe("cut off")
          server = await startServer(root, keys, env, { dataDir: dir })
          const now = await expectWholeItemsOnly(server)
          expect(now - listed).toBeGreaterThanOrEqual(storedBeforeKill)
          expect(now - listed).toBeLessThan(100)
          kills.push(`${storedBeforeKill}→${now - listed}`)
          listed = now
        }
        await server.stop()
        const chain = await audit(db.database(dir), dir)
        expect(chain).toEqual({ entries: listed, valid: true })
        console.log(
          `faults: ${db.name} killed 3 times during batches of 100 (stored when killed → kept after restart: ` +
            `${kills.join(", ")}); ${listed} memories, ${chain.entries} chain entries, all proofs valid`
        )
      } finally {
        rmSync(dir, { recursive: true, force: true })
        if (db.name === "PostgreSQL") await scratch!.drop()
      }
    }, 300_000)
  }
})
