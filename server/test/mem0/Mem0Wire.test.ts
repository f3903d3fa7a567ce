import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../support/TestServer.js"
import type { Answer, Shown } from "./Answers.js"

let server: Awaited<ReturnType<typeof startListening>>

beforeAll(async () => {
  server = await startListening()
})

afterAll(async () => {
  await server?.stop()
})

interface Options {
  readonly key?: string | null
  readonly scheme?: string
  readonly body?: unknown
  readonly raw?: string
  readonly headers?: Record<string, string>
}

/**
 * A request as Mem0's JS client (npm `mem0ai` 3.3.1) sends it, from captured traffic: `Token` auth,
 * JSON content type on every call (GET and DELETE too), and an empty `Mem0-User-ID` until its ping
 * resolves.
 */
const call = async (method: string, path: string, options: Options = {}) => {
  const key = options.key === undefined ? keys.alice : options.key
  const response = await fetch(`${server.baseUrl}/mem0${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      "mem0-user-id": "",
      "x-mem0-client": "mem0-js/3.3.1",
      ...(key === null ? {} : { authorization: `${options.scheme ?? "Token"} ${key}` }),
      ...options.headers
    },
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body === undefined
        ? {}
        : { body: JSON.stringify(options.body) })
  })
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  return { status: response.status, body: (await response.json()) as Answer, headers: response.headers }
}

const user = () => `u-${crypto.randomUUID()}`
const add = async (body: Record<string, unknown>) => {
  const answer = await call("POST", "/v3/memories/add/", { body })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.results
}
const currentIds = async (userId: string) =>
  (await call("POST", "/v3/memories/", { body: { filters: { user_id: userId } } })).body.results
    .map((r) => r.id)
    .sort()

describe("the wire: paths, keys and errors as Mem0's clients meet them", () => {
  it("pings through a doubled slash with a Token key, and a Bearer key too", async () => {
    const ping = await call("GET", "//v1/ping/", { headers: { "x-mem0-client": "" } })
    expect(ping.status).toBe(200)
    expect(ping.body).toMatchObject({ status: "ok", user_email: null })
    expect(ping.body.org_id).toBe(ping.body.project_id)
    expect((await call("GET", "/v1/ping", { scheme: "Bearer" })).status).toBe(200)
  })

  it("answers 401 {detail} without a key or with a wrong one", async () => {
    for (const key of [null, "umo_not-a-key"]) {
      const refused = await call("GET", "/v1/ping/", { key })
      expect(refused.status).toBe(401)
      expect(typeof refused.body.detail).toBe("string")
    }
  })

  it("answers 404, 405 and 501 as JSON, naming the path, the methods or the feature", async () => {
    expect((await call("GET", "/v9/nothing/")).status).toBe(404)
    const patch = await call("PATCH", "/v1/memories/x/", { body: {} })
    expect(patch.status).toBe(405)
    expect(patch.headers.get("allow")).toBe("GET, PUT, DELETE")
    // Changing a webhook in place: delete it and add another.
    const hook = await call("PUT", "/api/v1/webhooks/w1/", { body: { url: "http://127.0.0.1:9/x" } })
    expect(hook.status).toBe(405)
    expect(hook.headers.get("allow")).toBe("DELETE")
    // A batch that is no list of memories is refused, naming it.
    const batch = await call("PUT", "/v1/batch/", { body: {} })
    expect(batch.status).toBe(422)
    expect(batch.body.detail).toMatch(/^invalid request body: memories: /)
    for (const [method, path] of [
      ["POST", "/v1/feedback/"],
      ["POST", "/v1/exports/"],
      ["GET", "/api/v1/orgs/organizations/o/projects/p/?fields=custom_instructions"],
      ["GET", "/v2/entities/user/alice/profile/"]
    ] as const) {
      const answer = await call(method, path, { body: method === "GET" ? undefined : {} })
      expect(answer.status, path).toBe(501)
      expect(answer.body.detail).toMatch(/^not supported by UMO's Mem0 API: /)
    }
  })

  it("names the field as Mem0's callers wrote it when the service refuses a value", async () => {
    const noQuery = await call("POST", "/v3/memories/search/", { body: { filters: { user_id: "u" } } })
    expect(noQuery.status).toBe(422)
    expect(noQuery.body.detail).toMatch(/query/)
    const [memory] = (await add({ messages: "Likes rain.", user_id: user() })) as [Shown]
    const badText = await call("PUT", `/v1/memories/${memory.id}/`, { body: { text: "   " } })
    expect(badText.status).toBe(422)
    expect(badText.body.detail).toMatch(/^invalid request body: text: /)
    const badTime = await call("PUT", `/v1/memories/${memory.id}/`, {
      body: { text: "x", timestamp: "soon" }
    })
    expect(badTime.body.detail).toMatch(/^invalid request body: timestamp: /)
  })

  it("refuses a body that is not a JSON object with a 422", async () => {
    expect((await call("POST", "/v3/memories/search/", { raw: "{not json" })).status).toBe(422)
    expect((await call("POST", "/v3/memories/search/", { raw: "[1]" })).status).toBe(422)
  })
})

describe("add, as the JS client sends it", () => {
  it("refuses Mem0 features UMO does not have, naming the first one, and stores nothing", async () => {
    const id = user()
    const refused = await call("POST", "/v3/memories/add/", {
      body: {
        messages: [{ role: "user", content: "I like tea" }],
        user_id: id,
        metadata: { someKey: 1 },
        infer: false,
        includes: "only food",
        expiration_date: "2030-01-01"
      }
    })
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toMatch(/^not supported by UMO's Mem0 API: includes/)
    const app = await call("POST", "/v3/memories/add/", {
      body: { messages: [{ role: "user", content: "x" }], agent_id: "ag", run_id: "r1", app_id: "app" }
    })
    expect(app.body.detail).toMatch(/^not supported by UMO's Mem0 API: app_id/)
    expect(await currentIds(id)).toEqual([])
  })

  it("refuses a message UMO cannot store before storing any of them, naming it", async () => {
    const id = user()
    const refused = await call("POST", "/v3/memories/add/", {
      body: {
        messages: [
          { role: "user", content: "fine" },
          { role: "user", content: "x".repeat(50_001) }
        ],
        user_id: id
      }
    })
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toMatch(/^invalid request body: messages\.1\.content: /)
    const badRun = await call("POST", "/v3/memories/add/", { body: { messages: "hi", run_id: " padded " } })
    expect(badRun.body.detail).toMatch(/run_id/)
    expect(await currentIds(id)).toEqual([])
  })

  it("takes camelCase ids inside filters, an ISO timestamp, and reads infer false as no update inference", async () => {
    const id = user()
    await add({
      messages: "I have lived in Madrid for six years.",
      filters: { userId: id },
      timestamp: "2023-01-01"
    })
    const lisbon = await add({
      messages: "Just signed the lease on our place in Lisbon!",
      filters: { userId: id },
      timestamp: 1709251200,
      infer: false
    })
    expect(lisbon.map((r) => r.event)).toEqual(["ADD"])
    expect((await currentIds(id)).length).toBe(2)
  })

  it("tells events that, applied to a copy, give the current memories", async () => {
    const id = user()
    const mirror = new Map<string, string>()
    const apply = (events: ReadonlyArray<Shown>) => {
      for (const e of events)
        if (e.event === "ADD") mirror.set(e.id, e.memory)
        else if (e.event === "DELETE") mirror.delete(e.id)
        else expect(e.event).toBe("NONE")
    }
    const steps = [
      { messages: "Just signed the lease on our place in Lisbon!", timestamp: 1709251200 },
      { messages: "I have lived in Madrid for six years.", timestamp: 1672531200 },
      { messages: "Just signed the lease on our place in Lisbon!", timestamp: 1709251200 },
      {
        messages: [
          { role: "user", content: "I work as a nurse." },
          { role: "assistant", content: "Noted." }
        ]
      }
    ]
    const told: Array<Array<string>> = []
    for (const step of steps) {
      const events = await add({ ...step, user_id: id })
      told.push(events.map((e) => e.event))
      apply(events)
      expect([...mirror.keys()].sort()).toEqual(await currentIds(id))
    }
    // Madrid, older than the lease the account holds, is stored outdated; the lease again is a repeat.
    expect(told).toEqual([["ADD"], ["NONE"], ["NONE"], ["ADD", "ADD"]])
  })
})

describe("the other calls, as the JS client sends them", () => {
  it("searches with its defaults, and lists pages with a start date", async () => {
    const id = user()
    await add({ messages: "I like green tea.", user_id: id, timestamp: 1704067200 })
    await add({ messages: "I like black coffee.", user_id: id, timestamp: 1717200000 })
    const found = await call("POST", "/v3/memories/search/", {
      body: {
        query: "tea",
        output_format: "v1.1",
        top_k: 5,
        threshold: 0.2,
        rerank: false,
        show_expired: true,
        filters: { AND: [{ user_id: id }, { created_at: { gte: "2024-01-01" } }] }
      }
    })
    expect(found.status).toBe(200)
    expect(found.body.results[0]?.memory).toBe("I like green tea.")
    const paged = await call("POST", "/v3/memories/?page=2&page_size=1", {
      body: { start_date: "2024-01-01", filters: { user_id: id } }
    })
    expect(paged.body).toMatchObject({ count: 2, next: null })
    expect(paged.body.previous).toMatch(/\/mem0\/v3\/memories\/\?page=1&page_size=1$/)
    expect(paged.body.results.map((r) => r.memory)).toEqual(["I like green tea."])
    const fields = await call("POST", "/v3/memories/search/", {
      body: { query: "tea", filters: { user_id: id }, fields: ["memory"] }
    })
    expect(Object.keys(fields.body.results[0]!).sort()).toEqual(["id", "memory", "umo_id"])
  })

  it("updates with expiration_date null, deletes with delete_linked, and keeps accounts apart", async () => {
    const id = user()
    const [first] = (await add({ messages: "Loves tea", user_id: id })) as [Shown]
    const updated = await call("PUT", `/v1/memories/${first.id}/`, {
      body: { text: "Loves green tea", metadata: { a: 1 }, expiration_date: null }
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      memory: "Loves green tea",
      metadata: { a: 1 },
      supersedes: [first.id]
    })
    expect((await call("GET", `/v1/memories/${updated.body.id}/`, { key: keys.bob })).status).toBe(404)
    // The expiry alone moves in place: the same memory, kept through its last day.
    const moved = await call("PUT", `/v1/memories/${updated.body.id}/`, {
      body: { expiration_date: "2999-01-01" }
    })
    expect(moved.body).toMatchObject({ id: updated.body.id, expiration_date: "2999-01-02T00:00:00.000Z" })
    // A superseded version is not changed: change the current one.
    expect(
      (await call("PUT", `/v1/memories/${first.id}/`, { body: { expiration_date: "2999-01-01" } })).status
    ).toBe(422)
    const deleted = await call("DELETE", `/v1/memories/${updated.body.id}/?delete_linked=true`)
    expect(deleted.body).toMatchObject({ message: "Memory deleted successfully!", cascade_count: 1 })
    expect((await call("GET", `/v1/memories/${first.id}/`)).status).toBe(404)
  })

  it("deletes all of a scope, never the whole account, and reads Python's dict in the query string", async () => {
    const id = user()
    await add({ messages: "Temporary.", user_id: id })
    expect((await call("DELETE", "/v1/memories/?")).status).toBe(422)
    const object = await call("DELETE", "/v1/memories/?filters=%5Bobject+Object%5D")
    expect(object.body.detail).toMatch(/filters/)
    const erased = await call("DELETE", `/v1/memories/?filters=${encodeURIComponent(`{'user_id': '${id}'}`)}`)
    expect(erased.body).toMatchObject({ message: "Memories deleted successfully!", deleted: 1 })
    expect(await currentIds(id)).toEqual([])
    await add({ messages: "Temporary again.", user_id: id, run_id: "r" })
    expect((await call("DELETE", `/v1/memories/?user_id=${id}&run_id=other`)).body.deleted).toBe(0)
    expect((await call("DELETE", `/v1/memories/?user_id=${id}&run_id=r`)).body.deleted).toBe(1)
    // Mem0's "*" (every user) would be the whole account.
    await add({ messages: "Still here.", user_id: id })
    const everyone = await call("DELETE", "/v1/memories/?user_id=*")
    expect(everyone.status).toBe(422)
    expect(everyone.body.detail).toMatch(/^invalid query string: user_id: "\*"/)
    expect(await currentIds(id)).toHaveLength(1)
  })

  it("lists entities in pages and deletes them by the v2 path and the deprecated v1 one", async () => {
    const [a, b] = [user(), user()]
    await add({ messages: "One.", user_id: a })
    await add({ messages: "Two.", user_id: b, run_id: `run-${b}` })
    const page = await call("GET", "/v1/entities/?page=1&page_size=100")
    const names = page.body.results.map((e) => `${e.type}:${e.name}`)
    expect(names).toEqual(expect.arrayContaining([`user:${a}`, `user:${b}`, `run:run-${b}`]))
    expect((await call("GET", "/v1/entities/?page_size=101")).status).toBe(422)
    expect((await call("DELETE", `/v2/entities/user/${a}/`)).body.deleted).toBe(1)
    expect((await call("DELETE", `/v1/entities/run/run-${b}/`)).body.deleted).toBe(1)
    expect((await call("DELETE", "/v2/entities/app/shop/")).body.detail).toMatch(
      /^not supported by UMO's Mem0 API: app/
    )
    expect(await currentIds(a)).toEqual([])
  })
})

describe("the legacy clients' paths", () => {
  it("adds at /v1/memories/, searches at /v2/ with top-level ids, and lists by GET and at /v2/", async () => {
    const id = user()
    const added = await call("POST", "/v1/memories/", {
      body: {
        messages: [{ role: "user", content: "I keep bees." }],
        user_id: id,
        output_format: "v1.1",
        version: "v2",
        // The 1.x Python client sends this with every add: UMO stores before it answers anyway.
        async_mode: true
      }
    })
    expect(added.status).toBe(200)
    expect(added.body.results[0]?.event).toBe("ADD")
    const found = await call("POST", "/v2/memories/search/", {
      body: { query: "bees", user_id: id, version: "v2" }
    })
    expect(found.body.results.map((r) => r.memory)).toEqual(["I keep bees."])
    const listed = await call("GET", `/v1/memories/?user_id=${id}`)
    expect(listed.body.results.map((r) => r.memory)).toEqual(["I keep bees."])
    const v2 = await call("POST", "/v2/memories/", { body: { filters: { user_id: id } } })
    expect(v2.body.count).toBe(1)
    expect((await call("GET", `/v1/memories/?user_id=${id}&app_id=x`)).body.detail).toMatch(/app_id/)
  })
})
