import { it } from "@effect/vitest"
import { AccountStore, Embedder, Ledger, makeEmbedder } from "@umo/core"
import { InvalidRequest, Memory, MemoryAccount, memoryLayer } from "@umo/memory"
import { Database, defaultPlugins, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"

/** Letters as a vector: equal texts embed equally, and nothing is downloaded. */
const LetterEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.succeed(texts.map((t) => Array.from({ length: 8 }, (_, i) => ((t.charCodeAt(i) || 1) % 7) + 1)))
  })
)

const TestMemory = memoryLayer({ plugins: defaultPlugins() }).pipe(
  Layer.provideMerge(
    StorageStack.layer({
      database: Database.pglite(),
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
      embedder: LetterEmbedder
    })
  )
)

/** Runs `effect` as a new account of its own. */
const asNewAccount = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.flatMap(Effect.service(AccountStore), (accounts) =>
      Effect.orDie(accounts.ensureAccount(`account-${crypto.randomUUID()}`))
    ),
    (account) => Effect.provideService(effect, MemoryAccount, account)
  )

const fieldNames = fc
  .stringMatching(/^[a-z_]{1,12}$/)
  .filter(
    (name) =>
      ![
        "content",
        "source",
        "timestamp",
        "user_id",
        "agent_id",
        "session_id",
        "metadata",
        "supersedes",
        "infer_updates",
        "dedupe",
        "__proto__",
        "constructor"
      ].includes(name)
  )

describe("captures on every face of the service", () => {
  it.layer(TestMemory, { timeout: "180 seconds" })((it) => {
    it.effect("refuses a batch with any unknown field whole, naming it, and stores nothing (property)", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const run = Effect.runPromiseWith(yield* Effect.context<Memory | AccountStore>())
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(fc.constantFrom("tea at noon", "a walk in Nice", "Ada's birthday"), {
                minLength: 1,
                maxLength: 6
              }),
              fc.nat(),
              fieldNames,
              async (texts, at, field) => {
                const index = at % texts.length
                const items = texts.map((content, i) =>
                  i === index ? { content, [field]: "dave" } : { content, user_id: "dave" }
                )
                const refused = await run(asNewAccount(Effect.flip(memory.batch({ items }))))
                expect(refused).toBeInstanceOf(InvalidRequest)
                expect(refused.detail).toContain(`items.${index}.${field}`)
                const listed = await run(asNewAccount(memory.list()))
                expect(listed.total_count).toBe(0)
              }
            ),
            { numRuns: 15 }
          )
        )
      })
    )

    it.effect("refuses scope ids with whitespace at either end, on every call that takes one", () =>
      asNewAccount(
        Effect.gen(function* () {
          const memory = yield* Memory
          for (const id of [" john smith", "john smith ", "\u2003john", "john\u00a0"]) {
            const refused = yield* Effect.flip(memory.capture({ content: "Likes tea.", user_id: id }))
            expect(refused.detail).toContain("user_id: must not start or end with whitespace")
            const listed = yield* Effect.flip(memory.list({ agent_id: id }))
            expect(listed.detail).toContain("agent_id: must not start or end with whitespace")
          }
          expect(
            (yield* memory.capture({ content: "Likes tea.", user_id: "john smith" })).umo_id
          ).toBeTruthy()
          expect((yield* memory.list()).total_count).toBe(1)
        })
      )
    )

    it.effect(
      'takes "*" in a scope field, the source or metadata literally: list, search, answer and erase reach only it',
      () =>
        asNewAccount(
          Effect.gen(function* () {
            const memory = yield* Memory
            const star = yield* memory.capture({
              content: "Star likes tea.",
              user_id: "*",
              source: "*",
              metadata: { tag: "*" }
            })
            yield* memory.capture({
              content: "Ana likes tea.",
              user_id: "ana",
              source: "chat",
              metadata: { tag: "x" }
            })
            for (const selection of [{ user_id: "*" }, { source: "*" }, { metadata: { tag: "*" } }]) {
              expect((yield* memory.list(selection)).items.map((m) => m.umo_id)).toEqual([star.umo_id])
              const found = yield* memory.search({ query: "who likes tea", ...selection })
              expect(found.results.map((m) => m.umo_id)).toEqual([star.umo_id])
              const answer = yield* memory.answer({ question: "Who likes tea?", ...selection })
              expect(answer.citations.map((c) => c.umo_id)).toEqual([star.umo_id])
            }
            // The filter expression keeps "*" as "has a value".
            expect((yield* memory.list({ filters: { user_id: "*" } })).total_count).toBe(2)
            const erased = yield* memory.erase({ user_id: "*" })
            expect(erased.umo_ids).toEqual([star.umo_id])
            expect((yield* memory.list()).items.map((m) => m.user_id)).toEqual(["ana"])
          })
        )
    )

    it.effect("stores one memory for identical captures, however many race, and records each repeat", () =>
      asNewAccount(
        Effect.gen(function* () {
          const memory = yield* Memory
          const ledger = yield* Ledger
          const account = yield* MemoryAccount
          const said = {
            content: "The spare key is under the blue pot.",
            user_id: "ana",
            metadata: { room: "hall" }
          }
          const answers = yield* Effect.forEach(
            Array.from({ length: 8 }, () => said),
            (request) => memory.capture(request),
            { concurrency: "unbounded" }
          )
          const ids = new Set(answers.map((a) => a.umo_id))
          expect(ids.size).toBe(1)
          expect(answers.filter((a) => a.duplicate_of === undefined)).toHaveLength(1)
          expect((yield* memory.list()).total_count).toBe(1)
          const chain = yield* memory.chain({ limit: 100 })
          expect(chain.entries.filter((e) => e.kind === "capture")).toHaveLength(1)
          expect(chain.entries.filter((e) => e.kind === "repeat")).toHaveLength(7)
          expect((yield* ledger.audit(account.account_id)).valid).toBe(true)
          // Another scope, other metadata, another time, dedupe off or another source: a new memory each.
          const others = [
            { ...said, user_id: "bo" },
            { ...said, metadata: { room: "porch" } },
            { ...said, timestamp: "2024-05-01T09:00:00Z" },
            { ...said, dedupe: false },
            { ...said, source: "notes" }
          ]
          for (const request of others) expect((yield* memory.capture(request)).duplicate_of).toBeUndefined()
          // The same time again is the same saying; a batch repeating itself stores it once.
          const again = yield* memory.capture({ ...said, timestamp: "2024-05-01T09:00:00Z" })
          expect(again.duplicate_of).toBeDefined()
          const batch = yield* memory.batch({
            items: [{ content: "Bought figs." }, { content: "Bought figs." }]
          })
          expect(batch.results[1]!.duplicate_of).toBe(batch.results[0]!.umo_id)
          expect((yield* memory.list({ limit: 100 })).total_count).toBe(7)
        })
      )
    )

    it.effect(
      "answers a search with each text once, at its newest time, counting how often it was said",
      () =>
        asNewAccount(
          Effect.gen(function* () {
            const memory = yield* Memory
            for (const timestamp of ["2023-01-01", "2024-01-01", "2022-01-01"])
              yield* memory.capture({ content: "Walked the dog by the river.", timestamp })
            yield* memory.capture({
              content: "Walked the dog by the river.",
              user_id: "ana",
              timestamp: "2025-01-01"
            })
            yield* memory.capture({ content: "Fed the cat at the river house." })
            const found = yield* memory.search({ query: "walked the dog by the river", limit: 5 })
            const texts = found.results.map((r) => r.content_text)
            expect(new Set(texts).size).toBe(texts.length)
            const walk = found.results.find((r) => r.content_text === "Walked the dog by the river.")!
            expect(walk.times_said).toBe(4)
            const newest = found.results.map((r) => r.timestamp)
            expect(walk.timestamp).toBe("2025-01-01T00:00:00.000Z")
            expect(newest).toHaveLength(2)
            // Records told apart by their metadata stay apart, though their texts are equal.
            for (const key of ["a", "b"])
              yield* memory.capture({ content: "Fed the cat at the river house.", metadata: { key } })
            const fed = yield* memory.search({ query: "fed the cat at the river house", limit: 5 })
            const cats = fed.results.filter((r) => r.content_text === "Fed the cat at the river house.")
            expect(cats.map((r) => r.metadata["key"] ?? null).sort()).toEqual(["a", "b", null])
          })
        )
    )

    it.effect("changes a memory by a new version: the history holds both, the chain stays whole", () =>
      asNewAccount(
        Effect.gen(function* () {
          const memory = yield* Memory
          const ledger = yield* Ledger
          const account = yield* MemoryAccount
          const first = yield* memory.capture({
            content: "Lives in Camden.",
            user_id: "ana",
            timestamp: "2024-01-01",
            metadata: { kind: "home" }
          })
          const moved = yield* memory.update(first.umo_id, {
            content: "Lives in Greenwich.",
            timestamp: "2024-06-01"
          })
          expect(moved.supersedes).toEqual([first.umo_id])
          const tagged = yield* memory.update(moved.umo_id, { metadata: { kind: "home", checked: true } })
          const now = yield* memory.get(tagged.umo_id)
          expect(now.content_text).toBe("Lives in Greenwich.")
          expect(now.user_id).toBe("ana")
          expect(now.metadata).toEqual({ kind: "home", checked: true })
          expect((yield* memory.get(first.umo_id)).superseded_by).toBe(moved.umo_id)
          const history = yield* memory.history(first.umo_id)
          expect(history.versions.map((v) => v.umo_id)).toEqual([first.umo_id, moved.umo_id, tagged.umo_id])
          expect((yield* memory.list()).items.map((m) => m.umo_id)).toEqual([tagged.umo_id])
          expect((yield* memory.proof(first.umo_id)).valid).toBe(true)
          expect((yield* ledger.audit(account.account_id)).valid).toBe(true)
          // The old version is refused, and so is a change that changes nothing.
          const stale = yield* Effect.flip(memory.update(first.umo_id, { content: "Lives in Kew." }))
          expect(stale.detail).toContain("already superseded")
          const same = yield* Effect.flip(memory.update(tagged.umo_id, { content: "Lives in Greenwich." }))
          expect(same.detail).toContain("changes nothing")
          const empty = yield* Effect.flip(memory.update(tagged.umo_id, {}))
          expect(empty.detail).toContain("give content, metadata, expires_at or ttl")
        })
      )
    )

    it.effect("lists the account's users, agents and sessions, most recently active first", () =>
      asNewAccount(
        Effect.gen(function* () {
          const memory = yield* Memory
          yield* memory.capture({ content: "Note one.", user_id: "ana", timestamp: "2024-01-01" })
          yield* memory.capture({
            content: "Note two.",
            user_id: "ana",
            agent_id: "helper",
            timestamp: "2024-03-01"
          })
          yield* memory.capture({
            content: "Note three.",
            user_id: "bo",
            session_id: "s1",
            timestamp: "2024-02-01"
          })
          const all = yield* memory.scopes()
          expect(all.scopes.map((s) => `${s.kind}:${s.id}:${s.memories}`)).toEqual([
            "agent:helper:1",
            "user:ana:2",
            "session:s1:1",
            "user:bo:1"
          ])
          expect(all.total_count).toBe(4)
          const users = yield* memory.scopes({ kind: "user", limit: 1 })
          expect(users.scopes.map((s) => s.id)).toEqual(["ana"])
          expect(users.has_more).toBe(true)
          expect(users.scopes[0]!.last_memory_at).toBe("2024-03-01T00:00:00.000Z")
          expect((yield* memory.scopes({ prefix: "b" })).scopes.map((s) => s.id)).toEqual(["bo"])
          const wrong = yield* Effect.flip(memory.scopes({ kind: "person" } as never))
          expect(wrong.detail).toContain("kind")
        })
      )
    )
  })
})
