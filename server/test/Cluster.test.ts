import { generateKeyPairSync } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type SigningKeySet, UMOClient, verifyProof, verifyReceipt } from "@umo/client"
import { Database, SigningKey, StorageStack, UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { auditChains } from "./support/Chains.js"
import { clusterUnavailable, type PgCluster, pgCluster } from "./support/PgCluster.js"
import { freePort, type LiveServer, startServer, warningLines } from "./support/ServerProcess.js"

/**
 * Read replicas and failover on a real PostgreSQL pair (scripts/pg-cluster.sh): a primary and a
 * streaming hot standby of this test's own, with two real server processes on the primary's
 * several-host URL reading from the standby. It needs Debian's postgresql-common, pgvector and
 * root (or password-less sudo); elsewhere the whole file is skipped, saying why.
 *
 * In order: servers whose read URL is wrong are refused at start (or, unreachable, warned about),
 * and a replica that stops under a running server is skipped (on a second, asynchronous pair); a
 * lagging replica never hides a memory from the caller who just captured it, and a replica that
 * has caught up does serve reads; the main pair's synchronous standby is stopped, and /health and
 * reads still answer at once (the rate limit's token writes do not wait for it) while a capture
 * waits for it and completes once it is back; then the primary is stopped and the standby promoted
 * while clients capture and delete through both processes, and nothing acknowledged is lost or
 * doubled.
 */
const root = join(import.meta.dirname, "..", "..")
const unavailable = clusterUnavailable()
if (unavailable !== undefined) console.log(`Cluster.test.ts skipped: ${unavailable}`)

const accounts = ["cluster-a", "cluster-b", "cluster-lag", "cluster-start", "cluster-sync"] as const
type AccountName = (typeof accounts)[number]
const keyOf = (account: AccountName) => `umo_${account}-${"0".repeat(40)}`.slice(0, 44)
const keys = Object.fromEntries(accounts.map((name) => [keyOf(name), name]))
const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done()` holds, checking every 50 ms; fails, saying what it waited for, after `limitMs`. */
const until = async (what: string, done: () => boolean | Promise<boolean>, limitMs = 60_000) => {
  const deadline = performance.now() + limitMs
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** Every HTTP answer a test got, for counting statuses. */
interface Answer {
  readonly op: string
  readonly server: number
  readonly status: number | "connection error"
  readonly retryAfter: string | null
  readonly body: unknown
  readonly started: number
}

interface Answered {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked by the tests
  readonly body: any
  /** How many requests it took (more than one: 503s or lost connections before). */
  readonly attempts: number
}

/**
 * Sends one request until it is answered with something else than a 503 or a lost connection: the
 * same body and Idempotency-Key on every attempt, after the `Retry-After` asked for (at most 250
 * ms: the test wants the first moment writes work again) or 100 ms after a lost connection. Every
 * answer goes into `log`.
 */
const requester =
  (servers: ReadonlyArray<LiveServer>, log: Array<Answer>) =>
  async (
    op: string,
    server: number,
    account: AccountName,
    method: string,
    path: string,
    body?: unknown,
    idempotencyKey?: string
  ): Promise<Answered> => {
    const deadline = performance.now() + 90_000
    for (let attempt = 1; ; attempt++) {
      const started = performance.now()
      let status: Answer["status"]
      let retryAfter: string | null = null
      let answer: unknown
      try {
        const response = await fetch(`${servers[server]!.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${keyOf(account)}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000)
        })
        status = response.status
        retryAfter = response.headers.get("retry-after")
        const text = await response.text()
        try {
          answer = JSON.parse(text)
        } catch {
          answer = text
        }
      } catch (error) {
        status = "connection error"
        answer = String(error)
      }
      log.push({ op, server, status, retryAfter, body: answer, started })
      if (status !== 503 && status !== "connection error") return { status, body: answer, attempts: attempt }
      if (performance.now() > deadline) throw new Error(`${op} ${path}: still ${status} after 90 s`)
      const asked = Number(retryAfter) * 1000
      await sleep(Number.isFinite(asked) && asked > 0 ? Math.min(asked, 250) : 100)
    }
  }

/** The proof is sound by the server's word and offline, from the keys pinned before. */
const proofSound = async (client: UMOClient, id: string, pinned: SigningKeySet, content?: string) => {
  const proof = await client.verify(id)
  return (
    proof.valid &&
    proof.hashChainValid &&
    !proof.chainTampered &&
    (await verifyProof(proof, pinned, content)) &&
    proof.umoId === id
  )
}

describe.skipIf(unavailable !== undefined)(
  "read replicas and failover on a real primary and hot standby",
  () => {
    /** The pair the two servers run on: synchronous, so no acknowledged commit is lost in a failover. */
    let main: PgCluster
    /** A second pair, for the servers that must be refused at start. */
    let other: PgCluster
    const servers: Array<LiveServer> = []
    const answers: Array<Answer> = []
    const request = requester(servers, answers)
    let pinned: SigningKeySet

    beforeAll(async () => {
      // Both at once; whichever was built is dropped in afterAll, even when the other failed.
      const built = await Promise.allSettled([
        pgCluster("m", ["--sync", "--no-fsync"]),
        pgCluster("o", ["--no-fsync"])
      ])
      if (built[0].status === "fulfilled") main = built[0].value
      if (built[1].status === "fulfilled") other = built[1].value
      for (const result of built) if (result.status === "rejected") throw result.reason
      const env = {
        DATABASE_URL: main.bothUrl,
        UMO_DATABASE_READ_URLS: main.standbyUrl,
        UMO_SIGNING_KEY: pem,
        UMO_EMBEDDER: "use-lite"
      }
      // Together, as a deployment's processes start: both run the migrations and check the replica.
      servers.push(
        ...(await Promise.all([0, 1].map(() => startServer(root, keys, env, { keepOutput: true }))))
      )
      pinned = await new UMOClient({ baseUrl: servers[0]!.baseUrl }).signingKeys()
    }, 180_000)

    /** On a failure: what the main pair's servers warned of, and the keys its primary holds. */
    const explainFailure = () =>
      onTestFailed(async () => {
        console.log(warningLines(servers))
        const held = await main
          .query(
            main.primaryPort,
            "SELECT string_agg(a.name || ' ' || k.key_id || ' ' || k.status, ', ') FROM api_keys k JOIN accounts a USING (account_id)"
          )
          .catch((error: unknown) => String(error))
        console.log(`keys on the main primary: ${held}`)
      })

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()))
      await Promise.all([main?.down(), other?.down()])
    }, 120_000)

    /**
     * A server on the second pair's primary with `readUrls`: its output if it exited, else the
     * running server (whose stop also removes its data directory).
     */
    const startOnOther = async (readUrls: string): Promise<LiveServer | string> => {
      const dataDir = mkdtempSync(join(tmpdir(), "umo-cluster-"))
      const remove = () => rmSync(dataDir, { recursive: true, force: true })
      const env = {
        DATABASE_URL: other.primaryUrl,
        UMO_DATABASE_READ_URLS: readUrls,
        UMO_SIGNING_KEY: pem,
        UMO_EMBEDDER: "use-lite"
      }
      try {
        const server = await startServer(root, keys, env, { dataDir, keepOutput: true })
        return { ...server, stop: () => server.stop().finally(remove) }
      } catch (error) {
        remove()
        return (error as Error).message
      }
    }

    it("refuses at start a read URL naming a primary, another database's standby or a standby at another schema version; warns of one it cannot reach, skips one that goes down, and serves from the primary", async () => {
      const lines: Array<string> = []
      // The primary itself as a "replica".
      const primary = await startOnOther(other.primaryUrl)
      expect(typeof primary, "a server reading from a primary started").toBe("string")
      expect(primary).toContain(
        `UMO_DATABASE_READ_URLS: 127.0.0.1:${other.primaryPort} accepts writes, so it is not a hot standby of DATABASE_URL`
      )
      expect(primary).not.toMatch(/Listening on/)
      lines.push(`primary as replica: ${/UMO_DATABASE_READ_URLS: [^"\\\n]*/.exec(primary as string)?.[0]}`)

      // A hot standby of the other pair (its own system identifier), with the same schema replayed.
      await until("the main standby to replay the schema", async () =>
        /^\d+$/.test(
          await main.query(main.standbyPort, "SELECT max(migration_id) FROM umo_migrations").catch(() => "")
        )
      )
      const foreign = await startOnOther(main.standbyUrl)
      expect(typeof foreign, "a server reading from another database's standby started").toBe("string")
      expect(foreign).toContain(
        `UMO_DATABASE_READ_URLS: 127.0.0.1:${main.standbyPort} is not a replica of DATABASE_URL's database (system identifier`
      )
      lines.push(
        `another database's standby: ${/UMO_DATABASE_READ_URLS: [^"\\\n]*/.exec(foreign as string)?.[0]}`
      )

      // Nothing listening at the replica's port: a warning, and the primary serves everything.
      const port = await freePort()
      const started = await startOnOther(`postgres://postgres@127.0.0.1:${port}/umo`)
      expect(typeof started, `the server did not start: ${started}`).not.toBe("string")
      const server = started as LiveServer
      try {
        expect(server.output()).toContain(
          `read replica 127.0.0.1:${port} cannot be reached at start; reads go to the primary until it answers`
        )
        const client = new UMOClient({
          baseUrl: server.baseUrl,
          apiKey: keyOf("cluster-start"),
          maxRetries: 0
        })
        const content = "The harbour master logged the tide at six metres."
        const { umoId } = await client.capture(content)
        expect((await client.get(umoId)).contentText).toBe(content)
        expect((await client.list({ limit: 5 })).items.map((m) => m.umoId)).toContain(umoId)
        expect(
          (await client.ask("What did the harbour master log?", { limit: 5 })).map((m) => m.umoId)
        ).toContain(umoId)
        expect(await proofSound(client, umoId, await client.signingKeys(), content)).toBe(true)
        lines.push(
          `unreachable replica :${port}: started with the warning; capture, get, list, search, proof served`
        )
      } finally {
        await server.stop()
      }

      // A replica that goes down while the server runs: skipped, with a log line; the primary serves.
      const reading = await startOnOther(other.standbyUrl)
      expect(typeof reading, `the server did not start: ${reading}`).not.toBe("string")
      const withReplica = reading as LiveServer
      try {
        const client = new UMOClient({
          baseUrl: withReplica.baseUrl,
          apiKey: keyOf("cluster-start"),
          maxRetries: 0
        })
        const content = "The night ferry to Valmorrow carried forty bicycles."
        const { umoId } = await client.capture(content)
        expect((await client.get(umoId)).contentText).toBe(content)
        await other.script("stop-standby")
        try {
          for (let i = 0; i < 3; i++) {
            expect((await client.get(umoId)).contentText).toBe(content)
            expect((await client.list({ limit: 5 })).items.map((m) => m.umoId)).toContain(umoId)
            expect(
              (await client.ask("What did the night ferry carry?", { limit: 5 })).map((m) => m.umoId)
            ).toContain(umoId)
          }
          expect(withReplica.output()).toContain(
            `read replica 127.0.0.1:${other.standbyPort} failed; reads go to the primary for 5 s`
          )
        } finally {
          await other.script("start-standby")
        }
        lines.push(`replica stopped under a running server: reads served by the primary, with the log line`)
      } finally {
        await withReplica.stop()
      }

      // A standby that stays at another schema version: its replay paused, the primary one migration
      // ahead (a row as a newer release's migration would leave). Refused after 10 s of waiting.
      await other.script("lag", "on")
      try {
        await other.query(
          other.primaryPort,
          "INSERT INTO umo_migrations (migration_id, name) SELECT max(migration_id) + 1, 'from_a_newer_release' FROM umo_migrations"
        )
        const behind = await startOnOther(other.standbyUrl)
        expect(typeof behind, "a server reading from a standby at another schema version started").toBe(
          "string"
        )
        expect(behind).toMatch(
          new RegExp(
            `UMO_DATABASE_READ_URLS: 127\\.0\\.0\\.1:${other.standbyPort} has schema version \\d+, the primary \\d+, after 10 s`
          )
        )
        lines.push(
          `standby at another schema version: ${/UMO_DATABASE_READ_URLS: [^"\\\n]*/.exec(behind as string)?.[0]}`
        )
      } finally {
        await other.script("lag", "off")
      }
      console.log(`cluster, refusals at start:\n  ${lines.join("\n  ")}`)
      // Five server starts, each with its 10 s wait for a standby: 75 s alone, past 120 s on a
      // machine also running the Citus and Patroni clusters.
    }, 240_000)

    it("never hides a just-captured memory from its writer while the replica lags, and reads from the replica once it has caught up", async () => {
      explainFailure()
      const reads: Array<string> = []
      const firstAnswer = answers.length
      const timings: Record<string, Array<number>> = {}
      const timed = async <A>(name: string, work: () => Promise<A>) => {
        const t = performance.now()
        const result = await work()
        timings[name] = [...(timings[name] ?? []), performance.now() - t]
        return result
      }
      /** Every read the API has of one memory, from one process: each must find it. */
      const readAll = async (
        server: number,
        id: string,
        content: string,
        question: string,
        phase: string
      ) => {
        const read = (op: string, method: string, path: string, body?: unknown) =>
          timed(`${phase} ${op}`, () => request(op, server, "cluster-lag", method, path, body))
        const got = await read("get", "GET", `/v1/memories/${id}`)
        expect(got.status, JSON.stringify(got.body)).toBe(200)
        expect(got.body.content_text).toBe(content)
        const listed = await read("list", "GET", "/v1/memories?limit=5")
        expect(listed.body.data.items.map((m: { umo_id: string }) => m.umo_id)).toContain(id)
        const searched = await read("search", "POST", "/v1/memories/query", { query: question, limit: 5 })
        expect(searched.body.data.results.map((m: { umo_id: string }) => m.umo_id)).toContain(id)
        const asked = await read("ask", "POST", "/v1/ask", { question })
        expect(asked.status, JSON.stringify(asked.body)).toBe(200)
        expect(
          asked.body.data.citations.map((c: { umo_id: string }) => c.umo_id),
          JSON.stringify(asked.body)
        ).toContain(id)
        const explained = await read(
          "explain",
          "GET",
          `/v1/memories/${id}/explain?query=${encodeURIComponent(question)}`
        )
        expect(explained.status, JSON.stringify(explained.body)).toBe(200)
        const proof = await read("proof", "GET", `/v1/memories/${id}/proof`)
        expect(proof.status, JSON.stringify(proof.body)).toBe(200)
        reads.push(
          `${phase}: process ${server} found ${id.slice(-6)} by get, list, search, ask, explain, proof`
        )
        const client = new UMOClient({
          baseUrl: servers[server]!.baseUrl,
          apiKey: keyOf("cluster-lag"),
          maxRetries: 0
        })
        expect(await proofSound(client, id, pinned, content)).toBe(true)
      }
      // Each about something else, so a question finds one memory only.
      const probes = [
        [
          "The lighthouse on Quendrith island was painted vermilion in 1931.",
          "What colour was the lighthouse on Quendrith island painted?"
        ],
        [
          "Valmorrow bakery sells rye bread every Tuesday morning.",
          "When does Valmorrow bakery sell rye bread?"
        ],
        [
          "The Ostrakel glacier retreated four kilometres in the last century.",
          "How far did the Ostrakel glacier retreat?"
        ],
        [
          "Pellinore the falconer trained a kestrel named Ember.",
          "What bird did Pellinore the falconer train?"
        ],
        [
          "The Thistlewick ferry leaves the harbour at seven each morning.",
          "When does the Thistlewick ferry leave the harbour?"
        ]
      ] as const
      const capture = async (i: number) => {
        const [content, question] = probes[i]!
        const writer = i % 2
        const captured = await request(
          "capture",
          writer,
          "cluster-lag",
          "POST",
          "/v1/process",
          { content },
          `lag-${process.pid}-${i}`
        )
        expect(captured.status, JSON.stringify(captured.body)).toBe(200)
        return { id: captured.body.data.umo_id as string, content, question, writer }
      }
      const onStandby = async (id: string) =>
        Number(await main.query(main.standbyPort, `SELECT count(*) FROM memories WHERE umo_id = '${id}'`))

      await main.script("lag", "on")
      try {
        for (let i = 0; i < 4; i++) {
          const { id, content, question, writer } = await capture(i)
          // At once, from the process that wrote it and from the other one.
          await readAll(writer, id, content, question, "replay paused")
          await readAll(1 - writer, id, content, question, "replay paused")
          // The replica really did not have it: every read above came from the primary.
          expect(await onStandby(id)).toBe(0)
          expect(await main.query(main.standbyPort, "SELECT pg_get_wal_replay_pause_state()")).toBe("paused")
        }
        // Each process said once that it passed over the lagging replica.
        for (const server of servers)
          expect(server.output()).toMatch(
            new RegExp(
              `read replica 127\\.0\\.0\\.1:${main.standbyPort} is \\d+ bytes of WAL behind the primary`
            )
          )
      } finally {
        await main.script("lag", "off")
      }

      // Replay resumed: the replica catches up and serves reads (its own sessions ran them).
      const last = await capture(4)
      await until("the standby to replay the last capture", async () => (await onStandby(last.id)) === 1)
      await readAll(last.writer, last.id, last.content, last.question, "replay resumed")
      let servedByReplica = 0
      for (let attempt = 0; attempt < 50 && servedByReplica === 0; attempt++) {
        const listed = await request("list", attempt % 2, "cluster-lag", "GET", "/v1/memories?limit=5")
        expect(listed.status).toBe(200)
        // The replica's own sessions, their last statement a read of the memories.
        servedByReplica = Number(
          await main.query(
            main.standbyPort,
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'umo' AND pid <> pg_backend_pid() AND query ILIKE '%FROM memories%'"
          )
        )
      }
      expect(servedByReplica, "no session on the standby read the memories").toBeGreaterThan(0)
      // Every request of this test was answered at once: no 503 (nor anything else) from a lagging replica.
      expect(answers.slice(firstAnswer).filter((a) => a.status !== 200)).toEqual([])
      const median = (xs: ReadonlyArray<number>) =>
        [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
      console.log(
        `cluster, lagging replica: ${reads.length} rounds of reads, each found the memory just captured; ` +
          `the standby served reads once replay resumed (${servedByReplica} of its sessions last read memories). ` +
          `Median ms with replay paused / resumed: ${["get", "list", "search", "ask", "proof"]
            .map(
              (op) =>
                `${op} ${Math.round(median(timings[`replay paused ${op}`] ?? []))} / ${Math.round(median(timings[`replay resumed ${op}`] ?? []))}`
            )
            .join(", ")}`
      )
    }, 180_000)

    it("with its synchronous standby down, the server still answers /health and reads, a capture waits (no 500), and completes once the standby is back", async () => {
      explainFailure()
      const log: Array<Answer> = []
      interface Timed extends Answer {
        // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked by the tests
        readonly body: any
        readonly ms: number
      }
      /** One request, not retried, given up after `timeoutMs`: a hang fails the test, it does not stall it. */
      const once = async (
        op: string,
        server: number,
        method: string,
        path: string,
        timeoutMs: number,
        body?: unknown,
        idempotencyKey?: string
      ): Promise<Timed> => {
        const started = performance.now()
        let status: Answer["status"]
        let answer: unknown
        try {
          const response = await fetch(`${servers[server]!.baseUrl}${path}`, {
            method,
            headers: {
              ...(path === "/health" ? {} : { authorization: `Bearer ${keyOf("cluster-sync")}` }),
              ...(body === undefined ? {} : { "content-type": "application/json" }),
              ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            signal: AbortSignal.timeout(timeoutMs)
          })
          status = response.status
          const text = await response.text()
          try {
            answer = JSON.parse(text)
          } catch {
            answer = text
          }
        } catch (error) {
          status = "connection error"
          answer = String(error)
        }
        const timed = {
          op,
          server,
          status,
          retryAfter: null,
          body: answer,
          started,
          ms: performance.now() - started
        }
        log.push(timed)
        return timed
      }
      /** The primary's sessions whose commit waits for the synchronous standby, with their last statement. */
      const syncRepWaiters = () =>
        main.query(
          main.primaryPort,
          "SELECT coalesce(string_agg(pid || ' (' || coalesce(application_name, '') || '): ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 160), ' | ' ORDER BY pid), '') FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
        )
      const expectAnswer = async (answer: Timed, status: number) => {
        if (answer.status !== status)
          throw new Error(
            `${answer.op} on process ${answer.server}: ${answer.status} after ${Math.round(answer.ms)} ms ` +
              `(${JSON.stringify(answer.body).slice(0, 300)}); sessions waiting for SyncRep on the primary: ` +
              `${(await syncRepWaiters()) || "none"}`
          )
      }
      const healthMs: Array<number> = []
      const readMs: Array<number> = []
      /** /health (within 2 s) and get, list and search of memory `id` (within 10 s each), on one process. */
      const readRound = async (server: number, id: string, content: string, question: string) => {
        const health = await once("health", server, "GET", "/health", 2_000)
        await expectAnswer(health, 200)
        healthMs.push(health.ms)
        const got = await once("get", server, "GET", `/v1/memories/${id}`, 10_000)
        await expectAnswer(got, 200)
        expect(got.body.content_text).toBe(content)
        const listed = await once("list", server, "GET", "/v1/memories?limit=5", 10_000)
        await expectAnswer(listed, 200)
        expect(listed.body.data.items.map((m: { umo_id: string }) => m.umo_id)).toContain(id)
        const searched = await once("search", server, "POST", "/v1/memories/query", 10_000, {
          query: question,
          limit: 5
        })
        await expectAnswer(searched, 200)
        expect(searched.body.data.results.map((m: { umo_id: string }) => m.umo_id)).toContain(id)
        readMs.push(got.ms, listed.ms, searched.ms)
      }
      const content = "The Brackenfold signal tower was rebuilt in granite in 1887."
      const question = "What was the Brackenfold signal tower rebuilt in?"
      const later = "The Corvane orchard harvested eleven tonnes of quinces this autumn."
      const laterQuestion = "How many quinces did the Corvane orchard harvest?"
      const first = await once(
        "capture",
        0,
        "POST",
        "/v1/process",
        30_000,
        { content },
        `sync-${process.pid}-0`
      )
      await expectAnswer(first, 200)
      const firstId = first.body.data.umo_id as string

      const stopping = performance.now()
      await main.script("stop-standby")
      const stopMs = performance.now() - stopping
      let standbyUp = false
      let capture: Promise<Timed> | undefined
      try {
        await until(
          "the primary to see its standby gone",
          async () =>
            (await main.query(main.primaryPort, "SELECT count(*) FROM pg_stat_replication")) === "0",
          10_000
        )
        // Through both processes (each reads from the replica when it is up): the primary serves.
        for (let round = 0; round < 3; round++)
          for (const server of [0, 1]) await readRound(server, firstId, content, question)

        // A capture reaches its commit and waits there for the standby: the primary shows it.
        capture = once(
          "capture",
          0,
          "POST",
          "/v1/process",
          60_000,
          { content: later },
          `sync-${process.pid}-1`
        )
        let settled: Timed | undefined
        void capture.then((answer) => {
          settled = answer
        })
        let waiting = ""
        await until(
          "the capture's commit to wait for the standby (wait_event SyncRep on the primary)",
          async () => {
            waiting = await syncRepWaiters()
            return settled !== undefined || waiting !== ""
          },
          15_000
        )
        // Meanwhile /health and reads still answer, the earlier memory's included, and the capture
        // stays pending (it is given 3 s: nothing in the server gives up on it, nor answers 500).
        const pendingSince = performance.now()
        for (const server of [0, 1]) await readRound(server, firstId, content, question)
        while (settled === undefined && performance.now() - pendingSince < 3_000) await sleep(100)
        const stillWaiting = await syncRepWaiters()
        if (settled !== undefined)
          throw new Error(
            `the capture answered ${settled.status} with the synchronous standby down: ${JSON.stringify(settled.body).slice(0, 300)}`
          )
        // Only the capture waits: no token write of the requests above does.
        expect(stillWaiting).not.toMatch(/rate_buckets|umo_take_token/)
        expect(stillWaiting.split(" | ")).toHaveLength(1)

        const whileDown = healthMs.length
        const restarting = performance.now()
        await main.script("start-standby")
        standbyUp = true
        const done = await capture
        const completedMs = performance.now() - restarting
        await expectAnswer(done, 200)
        const laterId = done.body.data.umo_id as string
        for (const server of [0, 1]) await readRound(server, laterId, later, laterQuestion)
        await until(
          "the standby to be synchronous again",
          async () =>
            (await main.query(
              main.primaryPort,
              "SELECT string_agg(sync_state, ',') FROM pg_stat_replication"
            )) === "sync",
          30_000
        )

        // Both memories' proofs, and the account's chain audited entry by entry from outside.
        const client = new UMOClient({
          baseUrl: servers[1]!.baseUrl,
          apiKey: keyOf("cluster-sync"),
          maxRetries: 0
        })
        expect(await proofSound(client, firstId, pinned, content)).toBe(true)
        expect(await proofSound(client, laterId, pinned, later)).toBe(true)
        const [audit] = await auditChains(
          ["cluster-sync"],
          StorageStack.layer({
            database: Database.postgres(main.bothUrl),
            signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem }),
            embedder: UseLiteEmbedder.layer()
          })
        )
        expect(audit).toEqual({ entries: 2, valid: true })
        // Every answer a 200: nothing answered 500 (nor 503, nor timed out).
        expect(log.filter((a) => a.status !== 200)).toEqual([])
        const max = (xs: ReadonlyArray<number>) => Math.round(Math.max(...xs))
        console.log(
          `cluster, synchronous standby down: stop-standby took ${Math.round(stopMs)} ms; ` +
            `${healthMs.length} /health answered 200 in at most ${max(healthMs)} ms, ` +
            `${readMs.length} get/list/search in at most ${max(readMs)} ms (${whileDown} rounds with the standby down); ` +
            `the capture waited for SyncRep (${waiting || stillWaiting}) and answered 200 ${Math.round(completedMs)} ms after start-standby ` +
            `(${Math.round(done.ms)} ms in all); chain of 2 entries valid; answers: ${log.length}, all 200`
        )
      } finally {
        if (!standbyUp) {
          await main.script("start-standby").catch(() => undefined)
          await capture
        }
      }
    }, 120_000)

    it("loses and doubles nothing when the primary is stopped and the standby promoted under load, and both processes write again without a restart", async () => {
      explainFailure()
      const load: Array<Answer> = []
      const send = requester(servers, load)
      interface Capture {
        readonly client: number
        readonly server: number
        readonly account: AccountName
        readonly content: string
        readonly started: number
        id?: string
        attempts?: number
        ended?: number
      }
      const captures: Array<Capture> = []
      const deletes: Array<{ id: string; account: AccountName; receipt?: string; attempts: number }> = []
      const unreadable: Array<string> = []
      let stop = false
      let failure: unknown

      // Six clients, three an account; each account written through both processes.
      const client = async (c: number) => {
        const account: AccountName = c % 2 === 0 ? "cluster-a" : "cluster-b"
        const server = Math.floor(c / 2) % 2
        const mine: Array<string> = []
        for (let n = 0; !stop; n++) {
          if (n % 4 === 3 && mine.length > 1) {
            const id = mine.shift()!
            const forgot = await send("delete", server, account, "DELETE", `/v1/memories/${id}`)
            // A 404 after a lost answer: the first attempt deleted it.
            if (forgot.status === 404 && forgot.attempts > 1)
              deletes.push({ id, account, attempts: forgot.attempts })
            else {
              expect(forgot.status, JSON.stringify(forgot.body)).toBe(200)
              deletes.push({ id, account, receipt: forgot.body.receipt, attempts: forgot.attempts })
            }
            continue
          }
          const record: Capture = {
            client: c,
            server,
            account,
            content: `Load note ${c}.${n}: the courier from depot ${c * 1000 + n} signed for parcel ${(n * 7919) % 10007}.`,
            started: performance.now()
          }
          captures.push(record)
          const answered = await send(
            "capture",
            server,
            account,
            "POST",
            "/v1/process",
            { content: record.content },
            `load-${process.pid}-${c}-${n}`
          )
          expect(answered.status, JSON.stringify(answered.body)).toBe(200)
          record.id = answered.body.data.umo_id
          record.attempts = answered.attempts
          record.ended = performance.now()
          mine.push(record.id!)
          // Read-your-writes through the same process, across the failover too.
          const got = await send("get", server, account, "GET", `/v1/memories/${record.id}`)
          if (got.status !== 200 || got.body.content_text !== record.content)
            unreadable.push(`${record.id}: ${got.status} ${JSON.stringify(got.body)}`)
        }
      }
      const running = Promise.all([0, 1, 2, 3, 4, 5].map(client)).catch((error: unknown) => {
        failure = error
        stop = true
      })
      const acknowledged = (since = 0, server?: number) =>
        captures.filter(
          (c) => c.id !== undefined && c.started >= since && (server === undefined || c.server === server)
        ).length
      const healthy = () => {
        if (failure !== undefined) throw failure
        return true
      }

      await until("40 captures before the failover", () => healthy() && acknowledged() >= 40)
      const stopping = performance.now()
      await main.script("stop-primary")
      // The primary's processes are gone: from here on, no write can land on it.
      const stoppedAt = performance.now()
      await sleep(500)
      await main.script("promote")
      const promotedAt = performance.now()
      // Until both processes have written several times on the new primary.
      await until(
        "eight captures through each process after the promotion",
        () => healthy() && acknowledged(promotedAt, 0) >= 8 && acknowledged(promotedAt, 1) >= 8
      )
      stop = true
      await running
      if (failure !== undefined) throw failure

      // Answers: 200s, 503s with Retry-After (and deletes' 404s after a lost answer); never a 500.
      const statuses = new Map<string, number>()
      for (const a of load)
        statuses.set(`${a.op} ${a.status}`, (statuses.get(`${a.op} ${a.status}`) ?? 0) + 1)
      const unexpected = load.filter(
        (a) =>
          !(
            a.status === 200 ||
            a.status === 503 ||
            a.status === "connection error" ||
            (a.op === "delete" && a.status === 404)
          )
      )
      expect(unexpected, JSON.stringify(unexpected.slice(0, 3))).toEqual([])
      const refused = load.filter((a) => a.status === 503)
      expect(refused.length, "no request met the failover").toBeGreaterThan(0)
      for (const a of refused) {
        // Delta-seconds, as the middleware sets it for a database that is away.
        expect(a.retryAfter, JSON.stringify(a)).toMatch(/^[1-9]\d*$/)
        expect(a.body).toEqual({ detail: expect.any(String) })
      }
      expect(unreadable, "a capture could not be read back at once").toEqual([])

      // Recovery: the first capture sent after the stop that was acknowledged, overall and per process.
      const firstAfter = (server?: number) =>
        Math.min(
          ...captures
            .filter(
              (c) =>
                c.ended !== undefined &&
                c.started >= stoppedAt &&
                (server === undefined || c.server === server)
            )
            .map((c) => c.ended! - stoppedAt)
        )
      for (const server of servers) expect(server.output().match(/Listening on/g)).toHaveLength(1)

      // Every acknowledged capture is there once, with its content; every deleted one is gone.
      let proofs = 0
      for (const account of ["cluster-a", "cluster-b"] as const) {
        const deleted = new Set(deletes.filter((d) => d.account === account).map((d) => d.id))
        const expected = new Map(
          captures.filter((c) => c.account === account && !deleted.has(c.id!)).map((c) => [c.id!, c.content])
        )
        const readers = servers.map(
          (server) => new UMOClient({ baseUrl: server.baseUrl, apiKey: keyOf(account), maxRetries: 0 })
        )
        const listed: Array<string> = []
        for await (const item of readers[0]!.iterate({ limit: 100 })) listed.push(item.umoId)
        expect((await readers[1]!.list({ limit: 1 })).totalCount).toBe(listed.length)
        const byContent = new Map<string, number>()
        for (const [i, id] of listed.entries()) {
          const memory = await readers[i % 2]!.get(id)
          byContent.set(memory.contentText, (byContent.get(memory.contentText) ?? 0) + 1)
          expect(memory.contentText, id).toBe(expected.get(id))
        }
        expect(
          [...byContent.values()].filter((n) => n > 1),
          "stored twice"
        ).toEqual([])
        expect(new Set(listed)).toEqual(new Set(expected.keys()))
        for (const id of deleted) {
          const gone = await readers[0]!.get(id).catch((error: { status?: number }) => error.status)
          expect(gone, id).toBe(404)
        }
        for (const [i, [id, content]] of [...expected].entries()) {
          expect(await proofSound(readers[i % 2]!, id, pinned, content), id).toBe(true)
          proofs += 1
        }
      }
      for (const d of deletes) if (d.receipt !== undefined) await verifyReceipt(d.receipt, pinned)

      // Every chain, audited entry by entry from outside, through the same several-host URL.
      const audits = await auditChains(
        ["cluster-a", "cluster-b"],
        StorageStack.layer({
          database: Database.postgres(main.bothUrl),
          signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem }),
          embedder: UseLiteEmbedder.layer()
        })
      )
      for (const [i, account] of (["cluster-a", "cluster-b"] as const).entries())
        expect(audits[i], account).toEqual({
          entries:
            captures.filter((c) => c.account === account).length +
            deletes.filter((d) => d.account === account).length,
          valid: true
        })

      const retried = captures.filter((c) => (c.attempts ?? 1) > 1).length
      console.log(
        `cluster, failover under load: ${captures.length} captures (${retried} retried with their key across the switch) ` +
          `and ${deletes.length} deletes through 2 processes; answers ${[...statuses].map(([k, n]) => `${k}: ${n}`).join(", ")}; ` +
          `stop-primary took ${Math.round(stoppedAt - stopping)} ms, promote done ${Math.round(promotedAt - stoppedAt)} ms after (500 ms pause first); ` +
          `first acknowledged capture sent after the stop: ${Math.round(firstAfter())} ms after it ` +
          `(process 0: ${Math.round(firstAfter(0))} ms, process 1: ${Math.round(firstAfter(1))} ms); ` +
          `every capture there once, ${proofs} proofs valid, ${deletes.filter((d) => d.receipt).length} receipts valid, ` +
          `chains of ${audits.map((a) => a.entries).join(" and ")} entries valid`
      )
    }, 240_000)
  }
)
