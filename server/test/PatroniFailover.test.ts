import { generateKeyPairSync } from "node:crypto"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { auditChains } from "./support/Chains.js"
import { type PgCluster, patroniCluster, patroniUnavailable } from "./support/PgCluster.js"
import { type LiveServer, startServer, warningLines } from "./support/ServerProcess.js"

/**
 * Automatic failover: a primary and a streaming standby that Patroni manages
 * (scripts/patroni-cluster.sh: two members and an etcd of their own, Patroni's synchronous_mode),
 * one real server process on the pair's several-host URL, and clients capturing without pause. The
 * leader's node fails (its Patroni and its PostgreSQL are killed; nobody runs `promote`): Patroni
 * promotes the standby once the leader key expires, the server finds the new primary by itself,
 * and captures — retried with their Idempotency-Key on a 503 or a lost connection — succeed again
 * within 60 s; every acknowledged capture is then stored once and each chain audits as valid. It
 * needs root, Debian's patroni and etcd, PostgreSQL and pgvector; elsewhere it is skipped, saying why.
 */
const root = join(import.meta.dirname, "..", "..")
const unavailable = patroniUnavailable()
if (unavailable !== undefined) console.log(`PatroniFailover.test.ts skipped: ${unavailable}`)

const accounts = ["patroni-a", "patroni-b"] as const
type AccountName = (typeof accounts)[number]
const keyOf = (account: AccountName) => `umo_${account}-${"0".repeat(40)}`.slice(0, 44)
const keys = Object.fromEntries(accounts.map((name) => [keyOf(name), name]))
const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done()` holds, checking every 50 ms; fails, saying what it waited for, after `limitMs`. */
const until = async (what: string, done: () => boolean, limitMs: number) => {
  const deadline = performance.now() + limitMs
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`)
    await sleep(50)
  }
}

describe.skipIf(unavailable !== undefined)("automatic failover by Patroni", () => {
  let cluster: PgCluster | undefined
  let server: LiveServer | undefined

  beforeAll(async () => {
    // Synchronous: the standby has flushed every acknowledged commit, so none may be missing after.
    // fsync off: killed processes lose nothing by it (only an OS crash would).
    cluster = await patroniCluster("p", ["--sync", "--no-fsync"])
    server = await startServer(
      root,
      keys,
      { DATABASE_URL: cluster.bothUrl, UMO_SIGNING_KEY: pem, UMO_EMBEDDER: "use-lite" },
      { keepOutput: true }
    )
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await cluster?.down()
  }, 60_000)

  it("writes again within 60 s after the leader's node fails, with every acknowledged capture stored once and the chains valid", async () => {
    const pair = cluster!
    const live = server!
    onTestFailed(async () => {
      console.log(warningLines([live]))
      console.log(await pair.script("status").catch((error: unknown) => String(error)))
    })
    interface Capture {
      readonly account: AccountName
      readonly content: string
      readonly started: number
      id?: string | undefined
      attempts?: number
      ended?: number
    }
    const captures: Array<Capture> = []
    const answers = new Map<string, number>()
    const unexpected: Array<string> = []
    let stop = false

    /**
     * One capture, sent until it is answered otherwise than with a 503 or a lost connection: the
     * same body and Idempotency-Key every time, after the Retry-After asked for (at most 250 ms)
     * or 100 ms after a lost connection.
     */
    const capture = async (record: Capture, key: string) => {
      for (let attempt = 1; ; attempt++) {
        let status: number | "connection error"
        let retryAfter: string | null = null
        let body: { data?: { umo_id?: string } } = {}
        try {
          const response = await fetch(`${live.baseUrl}/v1/process`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${keyOf(record.account)}`,
              "content-type": "application/json",
              "idempotency-key": key
            },
            body: JSON.stringify({ content: record.content }),
            signal: AbortSignal.timeout(30_000)
          })
          status = response.status
          retryAfter = response.headers.get("retry-after")
          body = (await response.json().catch(() => ({}))) as typeof body
        } catch {
          status = "connection error"
        }
        answers.set(String(status), (answers.get(String(status)) ?? 0) + 1)
        if (status === 200) {
          record.id = body.data?.umo_id
          record.attempts = attempt
          record.ended = performance.now()
          return
        }
        if (status !== 503 && status !== "connection error") {
          unexpected.push(`${status} ${JSON.stringify(body)}`)
          return
        }
        if (performance.now() - record.started > 90_000)
          throw new Error(`a capture was still ${status} after 90 s`)
        const asked = Number(retryAfter) * 1000
        await sleep(Number.isFinite(asked) && asked > 0 ? Math.min(asked, 250) : 100)
      }
    }
    // Four clients, two an account.
    const client = async (c: number) => {
      const account = accounts[c % 2]!
      for (let n = 0; !stop; n++) {
        const record: Capture = {
          account,
          content: `Patroni note ${c}.${n}: the ferry from pier ${c * 100 + n} left with ${(n * 7919) % 1009} crates.`,
          started: performance.now()
        }
        captures.push(record)
        await capture(record, `patroni-${process.pid}-${c}-${n}`)
      }
    }
    let failure: unknown
    const running = Promise.all([0, 1, 2, 3].map(client)).catch((error: unknown) => {
      failure = error
      stop = true
    })
    const acknowledged = (since = 0) =>
      captures.filter((c) => c.id !== undefined && c.started >= since).length
    const healthy = () => {
      if (failure !== undefined) throw failure
      return true
    }

    await until("20 captures before the failover", () => healthy() && acknowledged() >= 20, 30_000)
    const leaderBefore = (await pair.script("leader")).trim()
    const stopping = performance.now()
    await pair.script("stop-primary")
    const stoppedAt = performance.now()
    // Nobody promotes: Patroni does, once the dead leader's key expires (ttl 10 s).
    await until(
      "five captures sent after the leader failed to be acknowledged",
      () => healthy() && acknowledged(stoppedAt) >= 5,
      60_000
    )
    stop = true
    await running
    if (failure !== undefined) throw failure
    const leaderAfter = (await pair.script("leader")).trim()
    expect(leaderBefore).toBe(String(pair.primaryPort))
    expect(leaderAfter, "the standby leads now").toBe(String(pair.standbyPort))
    expect(unexpected, "answers other than 200, 503 or a lost connection").toEqual([])
    expect(answers.get("503") ?? 0, "no capture met the failover").toBeGreaterThan(0)

    const firstAfter = Math.min(
      ...captures
        .filter((c) => c.ended !== undefined && c.started >= stoppedAt)
        .map((c) => c.ended! - stoppedAt)
    )
    expect(firstAfter).toBeLessThan(60_000)

    // Every acknowledged capture is there once, with its content, and nothing else is.
    for (const account of accounts) {
      const expected = new Map(
        captures.filter((c) => c.account === account).map((c) => [c.id!, c.content] as const)
      )
      expect([...expected.keys()].every((id) => id !== undefined)).toBe(true)
      const reader = new UMOClient({ baseUrl: live.baseUrl, apiKey: keyOf(account), maxRetries: 0 })
      const stored = new Map<string, string>()
      for await (const item of reader.iterate({ limit: 100 }))
        stored.set(item.umoId, (await reader.get(item.umoId)).contentText)
      expect(new Set(stored.keys()), `${account}: stored vs acknowledged`).toEqual(new Set(expected.keys()))
      const contents = [...stored.values()]
      expect(new Set(contents).size, `${account}: a capture stored twice`).toBe(contents.length)
      for (const [id, content] of expected) expect(stored.get(id), id).toBe(content)
    }

    // Every chain, audited entry by entry from outside, through the same several-host URL.
    const audits = await auditChains(
      accounts,
      StorageStack.layer({
        database: Database.postgres(pair.bothUrl),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem }),
        embedder: UseLiteEmbedder.layer()
      })
    )
    for (const [i, account] of accounts.entries())
      expect(audits[i], account).toEqual({
        entries: captures.filter((c) => c.account === account).length,
        valid: true
      })

    expect(live.output().match(/Listening on/g)).toHaveLength(1)
    const retried = captures.filter((c) => (c.attempts ?? 1) > 1).length
    console.log(
      `patroni failover: leader :${leaderBefore} → :${leaderAfter}; stop-primary took ${Math.round(stoppedAt - stopping)} ms; ` +
        `first acknowledged capture sent after the stop: ${Math.round(firstAfter)} ms after it; ` +
        `${captures.length} captures (${retried} retried with their key across the switch), answers ` +
        `${[...answers].map(([status, n]) => `${status}: ${n}`).join(", ")}; every capture there once, ` +
        `chains of ${audits.map((a) => a.entries).join(" and ")} entries valid`
    )
  }, 120_000)
})
