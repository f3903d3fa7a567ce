import { execFile } from "node:child_process"
import { generateKeyPairSync } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { APIError, type Proof, type SigningKeySet, UMOClient, verifyProof, verifyReceipt } from "@umo/client"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { scratchDatabase } from "../../plugins/test/storage/ScratchDatabase.js"
import { auditChains } from "./support/Chains.js"
import { pool } from "./support/Pool.js"
import { type LiveServer, startServer, warningLines } from "./support/ServerProcess.js"

// Runs where CI provisions PostgreSQL (UMO_TEST_DATABASE_URL).
const url = process.env["UMO_TEST_DATABASE_URL"]
const root = join(import.meta.dirname, "..", "..")

const accounts = ["replica-a", "replica-b", "replica-c"]
const keys = Object.fromEntries(accounts.map((name) => [`umo_${name}-${"0".repeat(30)}`.slice(0, 44), name]))
const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/** On a failure, what the servers warned of (a 503's cause is in its warning line, not in the answer). */
const printWarnings = (servers: ReadonlyArray<LiveServer>) =>
  onTestFailed(() => console.log(warningLines(servers)))

const sound = (proof: Proof) => proof.valid && proof.hashChainValid && !proof.chainTampered

/** `npm run umo -- …` against a database, with a signing key given in the environment. */
const umoCli = (env: Readonly<Record<string, string>>, ...args: Array<string>) =>
  promisify(execFile)(process.execPath, ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...env }
  })

/**
 * Two server processes on one PostgreSQL database, started at the same moment (so both run the
 * migrations and ensure the keys at once), then 500 concurrent captures and deletes through
 * both: every count matches, every remaining memory's proof is valid through either process,
 * and every account's chain audits as one line with an entry per capture and per delete. Then
 * the signing key is rotated under them, and every proof, old and new, stays valid.
 */
describe.runIf(url)("two server processes on one PostgreSQL", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_replicas_${process.pid}`)
  const servers: Array<LiveServer> = []
  const live: Array<Set<string>> = accounts.map(() => new Set())
  const receipts: Array<string> = []

  beforeAll(async () => {
    await scratch.create()
    const env = { DATABASE_URL: scratch.url, UMO_SIGNING_KEY: pem, UMO_EMBEDDER: "use-lite" }
    servers.push(...(await Promise.all([0, 1].map(() => startServer(root, keys, env, { keepOutput: true })))))
  }, 240_000)

  afterAll(async () => {
    for (const server of servers) await server.stop()
    await scratch.drop()
  }, 60_000)

  it("keeps counts, proofs and chains right under 500 concurrent captures and deletes", async () => {
    printWarnings(servers)
    const keyList = Object.keys(keys)
    // Client (account a, process p): each account is written through both processes.
    const client = (a: number, p: number) =>
      new UMOClient({ baseUrl: servers[p]!.baseUrl, apiKey: keyList[a]!, maxRetries: 0, timeoutMs: 120_000 })
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
      receipts.push((await client(a, (i + 1) % 2).forget(id)).receipt)
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
        expect(sound(proof), id).toBe(true)
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

  it("rotates the signing key under both: a replica still holding the old key refuses to sign, and every old and new proof stays valid", async () => {
    printWarnings(servers)
    const keyList = Object.keys(keys)
    const client = (a: number, p: number) =>
      new UMOClient({ baseUrl: servers[p]!.baseUrl, apiKey: keyList[a]!, maxRetries: 0, timeoutMs: 120_000 })
    const pinned: SigningKeySet = await client(0, 0).signingKeys()
    expect(pinned.keys).toHaveLength(1)
    const dir = mkdtempSync(join(tmpdir(), "umo-rotation-"))
    const next = join(dir, "next-key.pem")
    try {
      const rotated = await umoCli(
        { DATABASE_URL: scratch.url, UMO_SIGNING_KEY: pem },
        "signing-key",
        "rotate",
        "--out",
        next
      )
      expect(rotated.stdout).toMatch(/Rotated the signing key/)
      // Both servers still hold the retired key: they answer 503 and store nothing.
      for (const p of [0, 1]) {
        const refused = await client(0, p)
          .capture("Written after the rotation, by a server with the old key.")
          .catch((e: unknown) => e)
        expect(refused).toBeInstanceOf(APIError)
        expect((refused as APIError).status).toBe(503)
        expect((refused as APIError).detail).toMatch(/signing key was retired/)
      }
      for (const server of servers.splice(0)) await server.stop()
      const env = {
        DATABASE_URL: scratch.url,
        UMO_SIGNING_KEY: readFileSync(next, "utf8"),
        UMO_EMBEDDER: "use-lite"
      }
      servers.push(
        ...(await Promise.all([0, 1].map(() => startServer(root, keys, env, { keepOutput: true }))))
      )
      const fresh = await client(0, 1).signingKeys()
      expect(fresh.keys.map((k) => k.kid)).toEqual([expect.any(String), pinned.keys[0]!.kid])
      const jobs = Array.from({ length: 90 }, (_, i) => async () => {
        const a = i % accounts.length
        if (i % 3 === 2 && live[a]!.size > 0) {
          const id = [...live[a]!][0]!
          live[a]!.delete(id)
          receipts.push((await client(a, i % 2).forget(id)).receipt)
        } else {
          live[a]!.add(
            (await client(a, i % 2).capture(`After the rotation, note ${i} about lanterns.`)).umoId
          )
        }
      })
      await pool(jobs, 12, (_, job) => job())
      let proofs = 0
      for (const [a] of accounts.entries()) {
        for (const [i, id] of [...live[a]!].entries()) {
          const proof = await client(a, i % 2).verify(id)
          expect(sound(proof), id).toBe(true)
          // Offline, with only the key pinned before the rotation: the proof's key record links them.
          expect(await verifyProof(proof, pinned), id).toBe(true)
          proofs += 1
        }
      }
      for (const receipt of receipts) await verifyReceipt(receipt, pinned, fresh.rotations)
      const audits = await auditChains(
        accounts,
        StorageStack.layer({
          database: Database.postgres(scratch.url),
          signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: readFileSync(next, "utf8") }),
          embedder: UseLiteEmbedder.layer()
        })
      )
      expect(audits.every((audit) => audit.valid)).toBe(true)
      console.log(
        `replicas after a rotation: 2 servers with the old key refused to sign (503); ${proofs} proofs valid, offline too from the key pinned before; ${receipts.length} deletion receipts verified; ${audits.length} chains valid`
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 600_000)
})

describe.runIf(url)("two server processes on one PostgreSQL with keys of their own", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_two_keys_${process.pid}`)
  beforeAll(() => scratch.create(), 60_000)
  afterAll(() => scratch.drop(), 60_000)

  it("starts the first and refuses the second before it serves anything, naming the key that signs", async () => {
    // No UMO_SIGNING_KEY: each makes a key in its own data directory, as two machines would.
    const env = { DATABASE_URL: scratch.url, UMO_EMBEDDER: "use-lite" }
    const first = await startServer(root, keys, env)
    try {
      const [signing] = (await new UMOClient({ baseUrl: first.baseUrl }).signingKeys()).keys
      const refused = await startServer(root, keys, env).then(
        async (second) => {
          await second.stop()
          return "started"
        },
        (error: Error) => error.message
      )
      expect(refused).toContain(`signed with the key ${signing!.kid!.slice(0, 12)}`)
      expect(refused).toMatch(/same UMO_SIGNING_KEY/)
      expect(refused).not.toMatch(/Listening|healthy/)
      console.log(`replicas with keys of their own: the second refused to start: ${refused.split("\n")[0]}`)
    } finally {
      await first.stop()
    }
  }, 300_000)
})
