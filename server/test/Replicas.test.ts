import { generateKeyPairSync } from "node:crypto"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scratchDatabase } from "../../plugins/test/storage/ScratchDatabase.js"
import { auditChains } from "./support/Chains.js"
import { pool } from "./support/Pool.js"
import { type LiveServer, startServer } from "./support/ServerProcess.js"

// Runs where CI provisions PostgreSQL (UMO_TEST_DATABASE_URL).
const url = process.env["UMO_TEST_DATABASE_URL"]
const root = join(import.meta.dirname, "..", "..")

const accounts = ["replica-a", "replica-b", "replica-c"]
const keys = Object.fromEntries(accounts.map((name) => [`umo_${name}-${"0".repeat(30)}`.slice(0, 44), name]))
const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/**
 * Two server processes on one PostgreSQL database, started at the same moment (so both run the
 * migrations and ensure the keys at once), then 500 concurrent captures and deletes through
 * both: every count matches, every remaining memory's proof is valid through either process,
 * and every account's chain audits as one line with an entry per capture and per delete.
 */
describe.runIf(url)("two server processes on one PostgreSQL", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_replicas_${process.pid}`)
  const servers: Array<LiveServer> = []

  beforeAll(async () => {
    await scratch.create()
    const env = { DATABASE_URL: scratch.url, UMO_SIGNING_KEY: pem, UMO_EMBEDDER: "use-lite" }
    servers.push(...(await Promise.all([0, 1].map(() => startServer(root, keys, env)))))
  }, 240_000)

  afterAll(async () => {
    for (const server of servers) await server.stop()
    await scratch.drop()
  }, 60_000)

  it("keeps counts, proofs and chains right under 500 concurrent captures and deletes", async () => {
    const keyList = Object.keys(keys)
    // Client (account a, process p): each account is written through both processes.
    const client = (a: number, p: number) =>
      new UMOClient({ baseUrl: servers[p]!.baseUrl, apiKey: keyList[a]!, maxRetries: 0, timeoutMs: 120_000 })
    const live: Array<Set<string>> = accounts.map(() => new Set())
    const deleted: Array<number> = accounts.map(() => 0)
    const captured: Array<number> = accounts.map(() => 0)
    const capture = (i: number) => async () => {
      const a = i % accounts.length
      const { umoId } = await client(a, i % 2).capture(
        `Note ${i}: the ${["red", "blue", "green"][i % 3]} kite flew over hill ${i}.`
      )
      live[a]!.add(umoId)
      captured[a]! += 1
    }
    const remove = (i: number) => async () => {
      const a = i % accounts.length
      const id = [...live[a]!][0]
      if (id === undefined) return
      live[a]!.delete(id)
      await client(a, (i + 1) % 2).forget(id)
      deleted[a]! += 1
    }
    // 250 captures first, then 150 captures and 100 deletes interleaved: 500 operations.
    await pool(
      Array.from({ length: 250 }, (_, i) => capture(i)),
      24,
      (_, job) => job()
    )
    const mixed = Array.from({ length: 250 }, (_, i) => (i % 5 < 2 ? remove(i) : capture(250 + i)))
    await pool(mixed, 24, (_, job) => job())
    const operations = captured.reduce((n, c) => n + c, 0) + deleted.reduce((n, d) => n + d, 0)
    expect(operations).toBe(500)

    let proofs = 0
    for (const [a] of accounts.entries()) {
      for (const p of [0, 1]) expect((await client(a, p).list({ limit: 1 })).totalCount).toBe(live[a]!.size)
      for (const [i, id] of [...live[a]!].entries()) {
        const proof = await client(a, i % 2).verify(id)
        expect(proof.valid && proof.hashChainValid && !proof.chainTampered, id).toBe(true)
        proofs += 1
      }
    }

    const audits = await auditChains(
      accounts,
      StorageStack.layer({
        database: Database.postgres(scratch.url),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem }),
        embedder: UseLiteEmbedder.layer()
      })
    )
    for (const [a, audit] of audits.entries())
      expect(audit).toEqual({ entries: captured[a]! + deleted[a]!, valid: true })
    console.log(
      `replicas: ${operations} operations (${captured.reduce((n, c) => n + c, 0)} captures, ${deleted.reduce((n, d) => n + d, 0)} deletes) through 2 processes; ${proofs} proofs valid; ${audits.length} chains of ${audits.map((x) => x.entries).join(", ")} entries valid`
    )
  }, 600_000)
})
