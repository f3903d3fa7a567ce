import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../support/TestServer.js"

const root = join(import.meta.dirname, "..", "..", "..")
const tools = process.env["UMO_TEST_JS_TOOLS"] ?? join(root, ".cache", "test-js-tools")
const packageDir = join(tools, "node_modules", "mem0ai")
const pinned = "3.3.1"

/** A memory, an event, a history entry or an entity as the JS client returns it: camelCased JSON. */
interface Shown {
  readonly id: string
  readonly umoId: string
  readonly memory: string
  readonly event: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly [key: string]: unknown
}
interface Results {
  readonly results: ReadonlyArray<Shown>
  readonly [key: string]: unknown
}
type Options = Readonly<Record<string, unknown>>

/** The part of `mem0ai`'s `MemoryClient` (its dist/index.d.ts) this test calls. */
interface MemoryClient {
  ping(): Promise<void>
  add(messages: unknown, options?: Options): Promise<Results>
  search(query: string, options?: Options): Promise<Results>
  getAll(
    options?: Options
  ): Promise<Results & { count: number; next: string | null; previous: string | null }>
  get(id: string): Promise<Shown>
  update(id: string, change: Options): Promise<Shown>
  history(id: string): Promise<ReadonlyArray<Shown>>
  delete(id: string, options?: Options): Promise<Options>
  deleteAll(options?: Options): Promise<Options>
  users(options?: Options): Promise<Results & { count: number }>
  deleteUsers(params?: Options): Promise<{ message: string }>
  batchDelete(ids: ReadonlyArray<string>): Promise<unknown>
}
/** Its errors: the class names the status, `errorCode` is `HTTP_<status>`, the message is the body. */
interface MemoryError extends Error {
  readonly errorCode: string
}
interface Mem0Module {
  readonly MemoryClient: new (options: { apiKey: string; host: string }) => MemoryClient
  readonly MemoryError: new (...args: never) => MemoryError
  readonly ValidationError: new (...args: never) => MemoryError
  readonly AuthenticationError: new (...args: never) => MemoryError
  readonly MemoryNotFoundError: new (...args: never) => MemoryError
}

/** The ES module entry of the pinned `mem0ai` that scripts/test-tools.sh installs, outside the workspace. */
const loadMem0 = async (): Promise<Mem0Module> => {
  const manifest = join(packageDir, "package.json")
  expect(existsSync(manifest), `${packageDir} is missing: run \`bash scripts/test-tools.sh\``).toBe(true)
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
    version: string
    exports: { ".": { import: string } }
  }
  expect(
    pkg.version,
    `mem0ai ${pkg.version} is not the pinned ${pinned}: run \`bash scripts/test-tools.sh\``
  ).toBe(pinned)
  // Read when the module loads: only the lower-case "false" turns the JS client's telemetry off.
  process.env["MEM0_TELEMETRY"] = "false"
  return (await import(pathToFileURL(join(packageDir, pkg.exports["."].import)).href)) as Mem0Module
}

let mem0: Mem0Module
let server: Awaited<ReturnType<typeof startListening>>
let client: MemoryClient
let host: string

beforeAll(async () => {
  mem0 = await loadMem0()
  server = await startListening()
  host = `${server.baseUrl}/mem0`
  client = new mem0.MemoryClient({ apiKey: keys.alice, host })
}, 240_000)

afterAll(async () => {
  await server?.stop()
})

const maria = `maria-${crypto.randomUUID()}`
const jo = `jo-${crypto.randomUUID()}`
const texts = (results: ReadonlyArray<Shown>) => results.map((r) => r.memory)

/** The error a call rejects with. */
const rejection = async (call: Promise<unknown>): Promise<MemoryError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error, "the call succeeded").toBeInstanceOf(Error)
  return error as MemoryError
}

// What the scenario leaves for the tests after it.
const ids = { madrid: "", lisbon: "", nurse: "", porto: "", jo: "" }

/**
 * Mem0's own JS client (npm `mem0ai` 3.3.1, unchanged, installed outside the workspace by
 * scripts/test-tools.sh) against the server's `/mem0`: the same person's changing facts as the
 * Python client's scenario, a second user beside her, and what UMO does not have refused.
 */
describe("Mem0's JS client against /mem0", () => {
  it("pings with a UMO key and host <server>/mem0", async () => {
    await expect(client.ping()).resolves.toBeUndefined()
  })

  it("adds one memory per message, with the scope, metadata and time, each carrying umoId", async () => {
    const { results } = await client.add(
      [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "I have lived in Madrid for six years." },
        { role: "assistant", content: "Thanks for telling me." }
      ],
      {
        userId: maria,
        agentId: "helper",
        runId: "chat-1",
        metadata: { topic: "home" },
        timestamp: 1672531200
      }
    )
    expect(results.map((r) => [r.event, r.memory, r.metadata["role"]])).toEqual([
      ["ADD", "I have lived in Madrid for six years.", "user"],
      ["ADD", "Thanks for telling me.", "assistant"]
    ])
    for (const r of results) {
      expect(r).toMatchObject({
        userId: maria,
        agentId: "helper",
        runId: "chat-1",
        metadata: { topic: "home" }
      })
      expect(r.createdAt).toBe("2023-01-01T00:00:00.000Z")
      expect(r.umoId).toBe(r.id)
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/)
    }
    ids.madrid = results[0]!.id
  })

  it("reports the fact it changed as a DELETE of the older memory beside the ADD, and a repeat as NONE", async () => {
    const lease = "Just signed the lease on our place in Lisbon!"
    const options = { userId: maria, agentId: "helper", runId: "chat-2", metadata: { topic: "home" } }
    const { results } = await client.add(lease, { ...options, timestamp: 1709251200 })
    const [added, deleted] = results as [Shown, Shown]
    expect(results).toHaveLength(2)
    expect(added).toMatchObject({ event: "ADD", memory: lease, supersedes: [ids.madrid] })
    expect(added.umoId).toBe(added.id)
    expect(deleted).toMatchObject({
      event: "DELETE",
      id: ids.madrid,
      umoId: ids.madrid,
      memory: "I have lived in Madrid for six years.",
      supersededBy: added.id
    })
    ids.lisbon = added.id
    const repeat = await client.add([{ role: "user", content: lease }], { ...options, timestamp: 1709251200 })
    expect(repeat.results).toEqual([
      expect.objectContaining({ event: "NONE", id: added.id, umoId: added.id, duplicateOf: added.id })
    ])
  })

  it("with infer false stores a fact without superseding, and keeps another user's memories apart", async () => {
    const work = await client.add([{ role: "user", content: "I work as a nurse." }], {
      userId: maria,
      infer: false
    })
    expect(work.results).toEqual([
      expect.objectContaining({
        event: "ADD",
        memory: "I work as a nurse.",
        userId: maria,
        agentId: null,
        runId: null
      })
    ])
    ids.nurse = work.results[0]!.id
    const other = await client.add("I have lived in Madrid all my life.", {
      userId: jo,
      metadata: { topic: "home" }
    })
    expect(other.results.map((r) => [r.event, r.userId])).toEqual([["ADD", jo]])
    ids.jo = other.results[0]!.id
    expect(other.results[0]!.supersedes).toBeUndefined()
  })

  it("searches with v2 filters: AND with a time, OR across users, and top_k", async () => {
    const since = await client.search("Where does she live?", {
      filters: { AND: [{ user_id: maria }, { created_at: { gte: "2024-01-01" } }] },
      topK: 5
    })
    expect(texts(since.results)).toContain("Just signed the lease on our place in Lisbon!")
    for (const r of since.results) {
      expect(r.userId).toBe(maria)
      expect(String(r.createdAt) >= "2024-01-01").toBe(true)
      expect(typeof r.score).toBe("number")
      expect(r.umoId).toBe(r.id)
    }
    const onlyMaria = await client.search("Madrid", { filters: { user_id: maria }, topK: 10 })
    expect(texts(onlyMaria.results)).not.toContain("I have lived in Madrid all my life.")
    expect(onlyMaria.results.every((r) => r.userId === maria)).toBe(true)
    const either = await client.search("Madrid Lisbon nurse", {
      filters: { OR: [{ user_id: maria }, { user_id: jo }] },
      topK: 50
    })
    expect(new Set(either.results.map((r) => r.userId))).toEqual(new Set([maria, jo]))
    expect(texts(either.results)).toEqual(
      expect.arrayContaining(["I have lived in Madrid all my life.", "I work as a nurse."])
    )
    const one = await client.search("Madrid Lisbon nurse", {
      filters: { OR: [{ user_id: maria }, { user_id: jo }] },
      topK: 1
    })
    expect(one.results).toHaveLength(1)
  })

  it("gets all of a user's current memories, in pages, with filters, and the superseded with latestOnly false", async () => {
    const all = await client.getAll({ filters: { user_id: maria } })
    expect(texts(all.results).sort()).toEqual(
      ["I work as a nurse.", "Just signed the lease on our place in Lisbon!", "Thanks for telling me."].sort()
    )
    expect(all).toMatchObject({ count: 3, next: null, previous: null })
    const page = await client.getAll({ filters: { user_id: maria }, page: 1, pageSize: 1 })
    expect(page.results).toHaveLength(1)
    expect(page.next).toMatch(/\/mem0\/v3\/memories\/\?page=2&page_size=1$/)
    const home = await client.getAll({ filters: { AND: [{ user_id: maria }, { run_id: "chat-2" }] } })
    expect(home.results.map((r) => r.id)).toEqual([ids.lisbon])
    const since = await client.getAll({ filters: { user_id: maria }, startDate: "2024-01-01" })
    expect(texts(since.results)).not.toContain("Thanks for telling me.")
    const versions = await client.getAll({ filters: { user_id: maria }, latestOnly: false })
    expect(texts(versions.results)).toContain("I have lived in Madrid for six years.")
    const joAll = await client.getAll({ filters: { user_id: jo } })
    expect(joAll.results.map((r) => r.id)).toEqual([ids.jo])
  })

  it("gets one memory, and a missing one is MemoryNotFoundError with the 404 and UMO's detail", async () => {
    expect(await client.get(ids.lisbon)).toMatchObject({
      id: ids.lisbon,
      umoId: ids.lisbon,
      memory: "Just signed the lease on our place in Lisbon!",
      userId: maria,
      runId: "chat-2"
    })
    // Filed under categories of the default list, as Mem0 files it under its own.
    const { categories } = (await client.get(ids.lisbon)) as unknown as { categories: ReadonlyArray<string> }
    expect(categories.length).toBeGreaterThan(0)
    const missing = await rejection(client.get("00000000-0000-7000-8000-000000000000"))
    expect(missing).toBeInstanceOf(mem0.MemoryNotFoundError)
    expect(missing.errorCode).toBe("HTTP_404")
    expect(JSON.parse(missing.message).detail).toMatch(/^no memory with id /)
  })

  it("updates by a new version with its own id, and the history shows ADD then UPDATEs", async () => {
    const porto = await client.update(ids.lisbon, {
      text: "Just signed the lease on our place in Porto!",
      metadata: { topic: "home", checked: true }
    })
    expect(porto.id).not.toBe(ids.lisbon)
    expect(porto).toMatchObject({
      memory: "Just signed the lease on our place in Porto!",
      metadata: { topic: "home", checked: true },
      supersedes: [ids.lisbon],
      userId: maria,
      umoId: porto.id
    })
    ids.porto = porto.id
    const history = await client.history(porto.id)
    expect(history.map((h) => [h.event, h.oldMemory, h.newMemory])).toEqual([
      ["ADD", null, "I have lived in Madrid for six years."],
      ["UPDATE", "I have lived in Madrid for six years.", "Just signed the lease on our place in Lisbon!"],
      [
        "UPDATE",
        "Just signed the lease on our place in Lisbon!",
        "Just signed the lease on our place in Porto!"
      ]
    ])
    expect(history.map((h) => h.id)).toEqual([ids.madrid, ids.lisbon, porto.id])
    for (const h of history) expect(h.memoryId).toBe(porto.id)
  })

  it("deletes a memory, and with deleteLinked the versions it superseded", async () => {
    expect(await client.delete(ids.nurse)).toMatchObject({
      message: "Memory deleted successfully!",
      umoId: ids.nurse
    })
    expect(await rejection(client.get(ids.nurse))).toBeInstanceOf(mem0.MemoryNotFoundError)
    expect(await client.delete(ids.porto, { deleteLinked: true })).toMatchObject({ cascadeCount: 2 })
    for (const id of [ids.porto, ids.lisbon, ids.madrid])
      expect((await rejection(client.get(id))).errorCode).toBe("HTTP_404")
    expect(texts((await client.getAll({ filters: { user_id: maria } })).results)).toEqual([
      "Thanks for telling me."
    ])
  })

  it("lists the users, agents and runs, deletes all of a user's, and deletes users", async () => {
    const entities = (await client.users()).results.map((e) => `${e["type"]}:${e["name"]}`)
    expect(entities).toEqual(
      expect.arrayContaining([`user:${maria}`, `user:${jo}`, "agent:helper", "run:chat-1"])
    )
    const jos = (await client.users()).results.find((e) => e["name"] === jo)
    expect(jos).toMatchObject({ id: jo, type: "user", totalMemories: 1 })
    await client.add("Another note.", { userId: maria })
    const held = (await client.getAll({ filters: { user_id: maria }, latestOnly: false })).count
    expect(held).toBe(2)
    expect(await client.deleteAll({ userId: maria })).toMatchObject({
      message: "Memories deleted successfully!",
      deleted: held
    })
    expect(await client.getAll({ filters: { user_id: maria } })).toMatchObject({ count: 0, results: [] })
    expect((await client.getAll({ filters: { user_id: jo } })).count).toBe(1)
    expect(await client.deleteUsers({ userId: jo })).toEqual({ message: "Entity deleted successfully." })
    expect((await client.getAll({ filters: { user_id: jo } })).count).toBe(0)
    await client.add("Prefers short answers.", { agentId: "helper" })
    expect(await client.deleteUsers()).toEqual({ message: "All users, agents, apps and runs deleted." })
    expect((await client.users()).results).toEqual([])
  })

  it("refuses what UMO cannot honour with the client's ValidationError, carrying the 422 and the field", async () => {
    const cases: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
      [
        "custom_categories",
        () =>
          client.add("I like tea.", {
            userId: maria,
            customCategories: [{ drinks: 42 as unknown as string }]
          })
      ],
      ["expiration_date", () => client.add("I like tea.", { userId: maria, expirationDate: "2001-01-01" })],
      ["app_id", () => client.add("I like tea.", { userId: maria, appId: "shop" })],
      [
        "rerank",
        () => client.search("tea", { filters: { user_id: maria }, rerank: "yes" as unknown as boolean })
      ],
      ["filters.app_id", () => client.search("tea", { filters: { app_id: "shop" } })],
      ["top_k", () => client.search("tea", { filters: { user_id: maria }, topK: 51 })],
      ["page_size", () => client.getAll({ filters: { user_id: maria }, pageSize: 101 })],
      ["user_id", () => client.deleteAll()]
    ]
    for (const [field, call] of cases) {
      const error = await rejection(call())
      expect(error, field).toBeInstanceOf(mem0.ValidationError)
      expect(error.errorCode, field).toBe("HTTP_422")
      expect(JSON.parse(error.message).detail, field).toContain(field)
    }
    expect((await client.getAll({ filters: { user_id: maria } })).count).toBe(0)
    // A batch delete naming a memory the account does not have deletes none of them.
    const batch = await rejection(client.batchDelete([crypto.randomUUID()]))
    expect(batch).toBeInstanceOf(mem0.MemoryNotFoundError)
    expect(batch.errorCode).toBe("HTTP_404")
    expect(JSON.parse(batch.message).detail).toMatch(/^no memory with id /)
  })

  it("refuses a bad key with the client's AuthenticationError, carrying the 401", async () => {
    const stranger = new mem0.MemoryClient({ apiKey: "umo_not-a-key", host })
    for (const call of [() => stranger.ping(), () => stranger.getAll({ filters: { user_id: maria } })]) {
      const error = await rejection(call())
      expect(error).toBeInstanceOf(mem0.AuthenticationError)
      expect(error.errorCode).toBe("HTTP_401")
      expect(JSON.parse(error.message).detail).toMatch(/invalid or revoked API key/)
    }
  })

  it("keeps accounts apart: another key sees none of this account's memories", async () => {
    const mine = await client.add("Only for alice's account.", { userId: maria })
    const bob = new mem0.MemoryClient({ apiKey: keys.bob, host })
    expect((await rejection(bob.get(mine.results[0]!.id))).errorCode).toBe("HTTP_404")
    expect(await bob.getAll({ filters: { user_id: maria } })).toMatchObject({ count: 0, results: [] })
    expect((await bob.search("alice", { filters: { user_id: maria } })).results).toEqual([])
  })
})
