import { execFile } from "node:child_process"
import { generateKeyPairSync } from "node:crypto"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest"
import { shardOf } from "../../plugins/src/search/IndexShard.js"
import { scratchDatabase } from "../../plugins/test/storage/ScratchDatabase.js"
import { type LiveServer, startServer, warningLines } from "./support/ServerProcess.js"

// Runs where CI provisions PostgreSQL (UMO_TEST_DATABASE_URL).
const url = process.env["UMO_TEST_DATABASE_URL"]
const root = join(import.meta.dirname, "..", "..")
const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/** Eight accounts given to both servers in UMO_API_KEYS; more are made with the CLI if a shard gets too few. */
const named = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"].map(
  (name) => `shard-${name}`
)
const keyOf = (name: string) => `umo_${name}-${"0".repeat(40)}`.slice(0, 44)

/** What each account holds: a different number of memories each, so the shards' sums tell them apart. */
const topics = [
  "the kite flew over the hill on a windy afternoon",
  "the night ferry to Porto carried forty bicycles",
  "the lighthouse keeper painted the door blue in May",
  "the baker in Faro sells almond cakes on Sundays",
  "the tram to Belem runs every twelve minutes",
  "the harbour master logged the tide at six metres",
  "the orchard's apricots ripened two weeks early",
  "the choir rehearses Bach in the old chapel on Thursdays",
  "the glacier retreated ninety metres since the last survey",
  "the library lends telescopes for a week at a time",
  "the potter fires her kiln with olive wood"
]
const queries = ["What flew over the hill?", "almond cakes", "when does the choir rehearse"]

interface Account {
  readonly name: string
  readonly key: string
  readonly id: string
  /** Its shard of 2, by the same hash the servers use. */
  readonly shard: number
  /** Memories captured. */
  memories: number
}

interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked by the tests
  readonly body: any
}

const call = async (
  server: LiveServer,
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown
) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000)
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed } as Answer
}

interface IndexFigures {
  readonly serving: number
  readonly loading: number
  readonly memories: number
  readonly shard: string | null
}
const health = async (server: LiveServer): Promise<IndexFigures> => {
  const answer = await call(server, undefined, "GET", "/health")
  expect(answer.status).toBe(200)
  return answer.body.index
}

/** `npm run umo -- keys create --account NAME` on the test's database: the key and the account id it prints. */
const createKey = async (databaseUrl: string, name: string) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", "keys", "create", "--account", name],
    { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl } }
  )
  const id = /\(user_id ([0-9a-f-]{36})\)/.exec(stdout)?.[1]
  const key = /^\s+(umo_\S+)\s*$/m.exec(stdout)?.[1]
  if (id === undefined || key === undefined) throw new Error(`keys create printed no key:\n${stdout}`)
  return { id, key }
}

/**
 * A search's results as compared across servers (ids in order, scores), and what served it: the
 * `sync` entry of its Server-Timing says `desc=index` or `desc=database`.
 */
const searched = async (server: LiveServer, account: Account, query: string) => {
  const answer = await call(server, account.key, "POST", "/v1/search", { query, limit: 10 })
  expect(answer.status, `${account.name} on ${server.baseUrl}: ${JSON.stringify(answer.body)}`).toBe(200)
  const timing = answer.headers.get("server-timing") ?? ""
  return {
    results: (answer.body.data.results as ReadonlyArray<{ umo_id: string; score: number }>).map((r) => ({
      umo_id: r.umo_id,
      score: r.score
    })),
    servedBy: /(?:^|,\s*)sync;[^,]*desc=(\w+)/.exec(timing)?.[1] ?? `no sync entry in "${timing}"`
  }
}

/**
 * Two server processes on one PostgreSQL database, `UMO_INDEX_SHARD=1/2` and `2/2`: each answers
 * every account, but holds in its search index only the accounts whose id hashes to its shard
 * (`shardOf`); the others it serves from the database. Both answer every account's searches alike,
 * `/health` counts exactly the shard's accounts and memories, and `GET /v1/account` names the
 * account's shard for a load balancer to route by.
 */
describe.runIf(url)("two servers, each indexing its shard of the accounts", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_shards_${process.pid}`)
  const servers: Array<LiveServer> = []
  const accounts: Array<Account> = []
  const shards = ["1/2", "2/2"]

  /** The accounts of shard `k` (1 or 2) and their memories. */
  const shardFigures = (k: number) => {
    const own = accounts.filter((a) => a.shard === k)
    return { accounts: own.length, memories: own.reduce((n, a) => n + a.memories, 0) }
  }

  const captureIn = async (account: Account, server: LiveServer, contents: ReadonlyArray<string>) => {
    const answer = await call(server, account.key, "POST", "/v1/batch", {
      items: contents.map((content) => ({ content }))
    })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const results: ReadonlyArray<{ success: boolean; umo_id: string }> = answer.body.data.results
    expect(results.map((r) => r.success)).toEqual(contents.map(() => true))
    account.memories += contents.length
    return results.map((r) => r.umo_id)
  }

  /**
   * Searches every account on both servers (the shard's server loads the account's index inline,
   * it being small), then waits until neither server is loading and each serves at least its
   * shard's accounts.
   */
  const searchEverywhere = async () => {
    for (const account of accounts) for (const server of servers) await searched(server, account, queries[0]!)
    const deadline = Date.now() + 20_000
    for (const [i, server] of servers.entries()) {
      for (;;) {
        const figures = await health(server)
        if (figures.loading === 0 && figures.serving >= shardFigures(i + 1).accounts) break
        if (Date.now() > deadline) throw new Error(`server ${i + 1}'s index: ${JSON.stringify(figures)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  }

  beforeAll(async () => {
    const began = performance.now()
    await scratch.create()
    const keys = Object.fromEntries(named.map((name) => [keyOf(name), name]))
    const env = { DATABASE_URL: scratch.url, UMO_SIGNING_KEY: pem, UMO_EMBEDDER: "use-lite" }
    servers.push(
      ...(await Promise.all(
        shards.map((shard) =>
          startServer(root, keys, { ...env, UMO_INDEX_SHARD: shard }, { keepOutput: true })
        )
      ))
    )
    const started = performance.now()
    for (const name of named) {
      const answer = await call(servers[0]!, keyOf(name), "GET", "/v1/account")
      expect(answer.status).toBe(200)
      const id: string = answer.body.data.account.user_id
      accounts.push({ name, key: keyOf(name), id, shard: shardOf(id, 2), memories: 0 })
    }
    // Account ids are random: a shard with fewer than two accounts gets more, made as an operator would.
    for (let extra = 1; Math.min(shardFigures(1).accounts, shardFigures(2).accounts) < 2; extra++) {
      if (extra > 12) throw new Error("twelve more accounts and still a shard with fewer than two")
      const name = `shard-extra-${extra}`
      const { id, key } = await createKey(scratch.url, name)
      accounts.push({ name, key, id, shard: shardOf(id, 2), memories: 0 })
    }
    // 3, 4, 5 … memories each, through server 1 for even accounts and server 2 for odd ones.
    await Promise.all(
      accounts.map((account, i) =>
        captureIn(
          account,
          servers[i % 2]!,
          topics.slice(0, 3 + (i % (topics.length - 2))).map((topic) => `${account.name}: ${topic}.`)
        )
      )
    )
    console.log(
      `shards: servers started in ${Math.round(started - began)} ms; accounts made and memories captured in ${Math.round(performance.now() - started)} ms`
    )
  }, 180_000)

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()))
    await scratch.drop()
  }, 60_000)

  it("names the caller's shard in GET /v1/account's UMO-Index-Shard on both servers", async () => {
    onTestFailed(() => console.log(warningLines(servers)))
    for (const account of accounts)
      for (const server of servers) {
        const answer = await call(server, account.key, "GET", "/v1/account")
        expect(answer.status).toBe(200)
        expect(answer.body.data.account.user_id).toBe(account.id)
        expect(answer.headers.get("umo-index-shard"), `${account.name} on ${server.baseUrl}`).toBe(
          `${account.shard}/2`
        )
      }
    // Unauthenticated: a 401, with no shard to route by.
    const refused = await call(
      servers[0]!,
      "umo_not-a-key-0000000000000000000000000000",
      "GET",
      "/v1/account"
    )
    expect(refused.status).toBe(401)
    expect(refused.headers.get("umo-index-shard")).toBeNull()
  })

  it("holds in each server's index exactly its shard's accounts, and in the two every account once", async () => {
    onTestFailed(() => console.log(warningLines(servers)))
    await searchEverywhere()
    const figures = await Promise.all(servers.map(health))
    for (const [i, index] of figures.entries()) {
      const expected = shardFigures(i + 1)
      expect(
        { shard: index.shard, serving: index.serving, memories: index.memories },
        `server ${shards[i]}`
      ).toEqual({ shard: shards[i], serving: expected.accounts, memories: expected.memories })
    }
    const total = accounts.reduce((n, a) => n + a.memories, 0)
    expect(figures[0]!.serving + figures[1]!.serving).toBe(accounts.length)
    expect(figures[0]!.memories + figures[1]!.memories).toBe(total)
    console.log(
      `shards: ${accounts.length} accounts, ${total} memories; ` +
        figures
          .map((f, i) => `server ${shards[i]} indexes ${f.serving} accounts, ${f.memories} memories`)
          .join("; ")
    )
  })

  it("answers every account's searches alike on both servers, from the index or from the database", async () => {
    onTestFailed(() => console.log(warningLines(servers)))
    // The two engines' float sums differ past the fifth decimal (pgvector sums in float4).
    const compare = async (label: string, also?: string) => {
      let results = 0
      for (const account of accounts)
        for (const query of also === undefined ? queries : [...queries, also]) {
          const [one, two] = await Promise.all(servers.map((server) => searched(server, account, query)))
          const what = `${label}: ${account.name} (shard ${account.shard}), "${query}"`
          // The account's shard's server reads its index; the other reads the database.
          expect([one!.servedBy, two!.servedBy], what).toEqual(
            account.shard === 1 ? ["index", "database"] : ["database", "index"]
          )
          expect(
            two!.results.map((r) => r.umo_id),
            what
          ).toEqual(one!.results.map((r) => r.umo_id))
          for (const [i, r] of one!.results.entries())
            expect(Math.abs(r.score - two!.results[i]!.score), what).toBeLessThan(1e-5)
          expect(one!.results.length, what).toBeGreaterThan(0)
          results += one!.results.length
          if (query === also)
            expect(
              one!.results.map((r) => r.umo_id),
              what
            ).toContain(added.get(account))
        }
      return results
    }
    const added = new Map<Account, string>()
    await searchEverywhere()
    const before = await compare("as captured")

    // One more memory each, through the server that does not index the account: its shard's
    // server picks it up from the chain on the next search, and both answers include it.
    const sang = "the choir sang at dawn on the pier"
    await Promise.all(
      accounts.map(async (account) => {
        const [id] = await captureIn(account, servers[2 - account.shard]!, [`${account.name}: ${sang}.`])
        added.set(account, id!)
      })
    )
    const after = await compare("after a capture through the other server", sang)
    for (const [i, server] of servers.entries())
      expect((await health(server)).memories, `server ${shards[i]}`).toBe(shardFigures(i + 1).memories)
    console.log(`shards: ${before} and then ${after} search results, the same from both servers`)
  })
})
