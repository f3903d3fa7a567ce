import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../support/TestServer.js"
import type { Answer, Shown } from "./Answers.js"

const root = join(import.meta.dirname, "..", "..", "..")
const venv = process.env["UMO_TEST_VENV"] ?? join(root, ".cache", "test-venv")
const python = join(venv, "bin", "python")
const scenario = join(import.meta.dirname, "mem0_scenario.py")

/** Runs the scenario with Mem0's telemetry off and its config directory in a temporary one. */
const runScenario = (baseUrl: string, key: string, user: string) =>
  new Promise<Record<string, Outcome>>((resolve, reject) => {
    const mem0Dir = mkdtempSync(join(tmpdir(), "umo-mem0-"))
    const child = spawn(python, [scenario, baseUrl, key, user], {
      env: { ...process.env, MEM0_TELEMETRY: "False", MEM0_DIR: mem0Dir }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      rmSync(mem0Dir, { recursive: true, force: true })
      if (code !== 0) return reject(new Error(`the scenario exited with ${code}:\n${stderr}`))
      resolve(JSON.parse(stdout))
    })
  })

let server: Awaited<ReturnType<typeof startListening>>
/** What a call of the scenario answered, or the exception the client raised. */
interface Outcome {
  readonly ok?: unknown
  readonly error?: string
  readonly message?: string
  readonly details?: { readonly detail?: string } | null
}

let out: Record<string, Outcome>

beforeAll(async () => {
  expect(existsSync(python), `${python} is missing: run \`bash scripts/test-tools.sh\``).toBe(true)
  server = await startListening()
  out = await runScenario(server.baseUrl, keys.alice, `maria-${crypto.randomUUID()}`)
}, 240_000)

afterAll(async () => {
  await server?.stop()
})

const ok = <T = Answer>(name: string): T => {
  const result = out[name]!
  expect(result.error, `${name}: ${result.message}`).toBeUndefined()
  return result.ok as T
}
const refusal = (name: string) => out[name]!
const texts = (results: ReadonlyArray<Shown>) => results.map((r) => r.memory)

/**
 * Mem0's own Python client (`mem0ai` 2.2.1 from PyPI, unchanged) against the server's `/mem0`: a
 * person's changing facts added, searched with v2 filters, listed, read, updated, traced, deleted,
 * and what UMO does not have refused with a detail the client shows.
 */
describe("Mem0's Python client against /mem0", () => {
  it("starts: the ping names the key's account as organization and project", () => {
    const ping = ok<{ org_id: string; project_id: string; user_email: string | null }>("ping")
    expect(ping.org_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(ping.project_id).toBe(ping.org_id)
    expect(ping.user_email).toBeNull()
  })

  it("adds one memory per user or assistant message, with the scope, metadata, role and time", () => {
    const { results } = ok("add_madrid")
    expect(results.map((r) => [r.event, r.memory, r.metadata.role])).toEqual([
      ["ADD", "I have lived in Madrid for six years.", "user"],
      ["ADD", "Thanks for telling me.", "assistant"]
    ])
    for (const r of results) {
      expect(r).toMatchObject({ agent_id: "helper", run_id: "chat-1", metadata: { topic: "home" } })
      expect(r.created_at).toBe("2023-01-01T00:00:00.000Z")
      expect(r.umo_id).toBe(r.id)
      expect(r.data).toEqual({ memory: r.memory })
    }
  })

  it("reports a superseded memory as DELETE beside the ADD that replaced it, and a repeat as NONE", () => {
    const madrid = ok("add_madrid").results[0]!
    const [added, deleted] = ok("add_lisbon").results as [Shown, Shown]
    expect(added).toMatchObject({ event: "ADD", memory: "Just signed the lease on our place in Lisbon!" })
    expect(added.supersedes).toEqual([madrid.id])
    expect(deleted).toMatchObject({
      event: "DELETE",
      id: madrid.id,
      memory: madrid.memory,
      superseded_by: added.id
    })
    const [repeat] = ok("add_repeat").results
    expect(repeat).toMatchObject({ event: "NONE", id: added.id, duplicate_of: added.id })
    expect(ok("add_repeat").results).toHaveLength(1)
  })

  it("takes the scope inside filters, and a memory of an agent alone", () => {
    expect(ok("add_work").results[0]).toMatchObject({ event: "ADD", agent_id: null, run_id: null })
    expect(ok("add_work").results[0]?.user_id).toMatch(/^maria-/)
    expect(ok("add_agent").results[0]).toMatchObject({ event: "ADD", user_id: null, agent_id: "helper" })
  })

  it("searches with v2 filters: AND with a time, OR across scopes, NOT, in and metadata", () => {
    const since = texts(ok("search_since_2024").results)
    expect(since).toContain("Just signed the lease on our place in Lisbon!")
    expect(since).not.toContain("I have lived in Madrid for six years.")
    for (const r of ok("search_since_2024").results) {
      expect(String(r.created_at) >= "2024-01-01").toBe(true)
      expect(typeof r.score).toBe("number")
    }
    expect(texts(ok("search_or").results)).toEqual(
      expect.arrayContaining(["Prefers short answers.", "I work as a nurse.", "Thanks for telling me."])
    )
    const notRun = ok("search_not_run").results
    expect(notRun.length).toBeGreaterThan(0)
    for (const r of notRun) expect(r.run_id).not.toBe("chat-2")
    const inList = ok("search_in").results
    expect(texts(inList)).toContain("Just signed the lease on our place in Lisbon!")
    for (const r of inList) expect(r.metadata.topic).toBe("home")
    expect(ok("search_threshold").results).toEqual([])
  })

  it("reranks with the cross-encoder when asked, and takes keyword_search (UMO always ranks by keywords)", () => {
    const reranked = texts(ok("search_rerank").results)
    expect(reranked.length).toBeGreaterThan(0)
    expect(reranked).toContain("Just signed the lease on our place in Lisbon!")
    expect(texts(ok("search_keywords").results)).toContain("Just signed the lease on our place in Lisbon!")
  })

  it("refuses a top_k or page_size beyond UMO's limits, naming it (ValidationError)", () => {
    expect(refusal("search_top_k_too_many")).toMatchObject({ error: "ValidationError" })
    expect(refusal("search_top_k_too_many").message).toMatch(/^invalid request body: top_k: /)
    expect(refusal("get_all_page_size_too_large")).toMatchObject({ error: "ValidationError" })
    expect(refusal("get_all_page_size_too_large").message).toMatch(/page_size/)
  })

  it("gets all of a user's current memories in pages, and the superseded ones with latest_only false", () => {
    const all = ok("get_all")
    expect(texts(all.results).sort()).toEqual(
      ["I work as a nurse.", "Just signed the lease on our place in Lisbon!", "Thanks for telling me."].sort()
    )
    expect(all).toMatchObject({ count: 3, next: null, previous: null })
    const page = ok("get_all_page")
    expect(page.results).toHaveLength(1)
    expect(page.next).toMatch(/\/mem0\/v3\/memories\/\?page=2&page_size=1$/)
    expect(texts(ok("get_all_with_history").results)).toContain("I have lived in Madrid for six years.")
  })

  it("gets one memory, and a missing one is MemoryNotFoundError with UMO's detail", () => {
    expect(ok("get")).toMatchObject({ memory: "Just signed the lease on our place in Lisbon!" })
    // Filed under categories of the default list, as Mem0 files it under its own.
    expect(ok<{ categories: ReadonlyArray<string> }>("get").categories.length).toBeGreaterThan(0)
    expect(refusal("get_missing").error).toBe("MemoryNotFoundError")
    expect(refusal("get_missing").message).toMatch(/^no memory with id /)
  })

  it("updates by a new version with its own id, and the history shows ADD then UPDATEs", () => {
    const lisbon = ok<Shown>("get")
    const porto = ok<Shown>("update")
    expect(porto.id).not.toBe(lisbon.id)
    expect(porto).toMatchObject({
      memory: "Just signed the lease on our place in Porto!",
      metadata: { topic: "home", checked: true },
      supersedes: [lisbon.id],
      user_id: lisbon.user_id
    })
    const history = ok<ReadonlyArray<Shown>>("history")
    expect(history.map((h) => [h.event, h.old_memory, h.new_memory])).toEqual([
      ["ADD", null, "I have lived in Madrid for six years."],
      ["UPDATE", "I have lived in Madrid for six years.", lisbon.memory],
      ["UPDATE", lisbon.memory, porto.memory]
    ])
    for (const h of history) expect(h.memory_id).toBe(porto.id)
    expect(history.at(-1)?.id).toBe(porto.id)
  })

  it("deletes a memory, lists the users, agents and runs, and deletes all of a user's", () => {
    expect(ok("delete").message).toBe("Memory deleted successfully!")
    expect(refusal("get_deleted").error).toBe("MemoryNotFoundError")
    const entities = ok("users").results.map((e) => `${e.type}:${e.name}`)
    expect(entities).toEqual(expect.arrayContaining(["agent:helper", "run:chat-1", "run:chat-2"]))
    expect(entities.some((e: string) => e.startsWith("user:maria-"))).toBe(true)
    expect(ok("delete_all").deleted).toBe(4)
    expect(ok("get_all_after_delete_all")).toMatchObject({ count: 0, results: [] })
    expect(ok("delete_users_agent").message).toMatch(/deleted/)
    expect(ok("users_after").results).toEqual([])
    expect(ok("reset").message).toMatch(/reset successful/)
    expect(ok("users_after_reset").results).toEqual([])
  })

  it("keeps an expiring, immutable memory through its last day, and refuses an expiry already past", () => {
    expect(ok<{ results: ReadonlyArray<{ event: string }> }>("add_expiring").results[0]).toMatchObject({
      event: "ADD"
    })
    expect(ok("get_expiring")).toMatchObject({
      memory: "The gate code is 2468 this month.",
      expiration_date: "3000-01-01T00:00:00.000Z",
      immutable: true
    })
    expect(refusal("add_expired").error).toBe("ValidationError")
    expect(refusal("add_expired").message).toContain("expiration_date: must be in the future")
  })

  it("updates and deletes in batches, all of them or none, with UMO's receipts", () => {
    const updated = ok<{
      message: string
      results: ReadonlyArray<{ supersedes: ReadonlyArray<string>; receipt: string }>
    }>("batch_update")
    expect(updated.message).toBe("Successfully updated 2 memories")
    expect(updated.results.map((r) => r.supersedes.length)).toEqual([1, 1])
    // One unknown id refuses the whole batch: the other memory is not changed, nor deleted.
    expect(refusal("batch_update_one_unknown").error).toBe("MemoryNotFoundError")
    expect(refusal("batch_delete_one_unknown").error).toBe("MemoryNotFoundError")
    const deleted = ok<{ message: string; forgotten: number; receipt: string }>("batch_delete")
    expect(deleted).toMatchObject({ message: "Successfully deleted 2 memories", forgotten: 2 })
    expect(deleted.receipt.split(".")).toHaveLength(3)
  })

  it("adds, lists and deletes a webhook with Mem0's calls, mapping its event types", () => {
    const hook = ok<{
      webhook_id: string
      event_types: ReadonlyArray<string>
      secret: string
      events: ReadonlyArray<string>
    }>("create_webhook")
    expect(hook).toMatchObject({
      name: "notify",
      url: "http://127.0.0.1:9/hook",
      event_types: ["memory_add", "memory_delete"]
    })
    expect(hook.events).toEqual(["memory.added", "memory.deleted", "memory.expired"])
    expect(hook.secret).toMatch(/^whsec_/)
    expect(ok<ReadonlyArray<{ webhook_id: string }>>("get_webhooks").map((w) => w.webhook_id)).toContain(
      hook.webhook_id
    )
    expect(ok("delete_webhook")).toEqual({ message: "Webhook deleted successfully" })
  })

  it("files an add under the categories it brings, and a categories filter finds it", () => {
    expect(ok("add_custom_categories")).toMatchObject({ results: [{ event: "ADD" }] })
    const found =
      ok<ReadonlyArray<{ memory: string; categories: ReadonlyArray<string> }>>("search_categories_filter")
    const hits = Array.isArray(found) ? found : (found as unknown as { results: typeof found }).results
    expect(hits.map((h) => h.memory)).toEqual(["I like green tea with honey."])
    expect(hits[0]!.categories).toEqual(["drinks"])
  })

  it("refuses what UMO does not have with a 4xx naming it, which the client raises with our detail", () => {
    const cases: Record<string, [string, string]> = {
      search_app_id: ["ValidationError", "filters.app_id"],
      feedback: ["MemoryError", "feedback"]
    }
    for (const [name, [error, field]] of Object.entries(cases)) {
      expect(refusal(name).error, name).toBe(error)
      expect(refusal(name).message).toContain(`not supported by UMO's Mem0 API: ${field}`)
      expect(refusal(name).details?.detail).toBe(refusal(name).message)
    }
    expect(refusal("delete_all_without_scope")).toMatchObject({ error: "ValidationError" })
    expect(refusal("bad_key")).toMatchObject({
      error: "ValueError",
      message: "Error: invalid or revoked API key"
    })
  })

  it("works with the async client too", () => {
    const { added, found } = ok<{ added: Answer; found: Answer }>("async")
    expect(added.results[0]).toMatchObject({ event: "ADD", memory: "Async hello." })
    expect(texts(found.results)).toEqual(["Async hello."])
  })
})
