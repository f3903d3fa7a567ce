import { it } from "@effect/vitest"
import { AccountStore, Embedder, Ledger, makeEmbedder } from "@umo/core"
import { Memory, MemoryAccount, memoryLayer, type Results } from "@umo/memory"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer, Stream } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../../plugins/test/storage/fixtures.js"

/** How many texts the embedder was asked for: an import carrying vectors asks for none. */
let embedded = 0
const TestEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.sync(() => {
        embedded += texts.length
        return texts.map((t) => Array.from({ length: 8 }, (_, i) => ((t.charCodeAt(i) || 1) % 7) + 1))
      })
  })
)

const TestMemory = memoryLayer().pipe(
  Layer.provideMerge(
    StorageStack.layer({
      database: Database.pglite(),
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
      embedder: TestEmbedder
    })
  )
)

/** Runs `effect` as the account named `name`. */
const as =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(
      Effect.flatMap(Effect.service(AccountStore), (accounts) => Effect.orDie(accounts.ensureAccount(name))),
      (account) => Effect.provideService(effect, MemoryAccount, account)
    )

/** An export's text, JSON Lines. */
const exportText = (request: Parameters<Memory["Service"]["exportMemories"]>[0] = {}) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    const lines = yield* Stream.runCollect(yield* memory.exportMemories(request))
    return [...lines].map((line) => `${JSON.stringify(line)}\n`).join("")
  })

/** Imports `text`, in chunks of `size` characters (a body arriving in pieces). */
const importText = (
  text: string,
  request: Parameters<Memory["Service"]["importMemories"]>[1] = {},
  size = 97
) =>
  Effect.flatMap(Effect.service(Memory), (memory) =>
    memory.importMemories(
      Stream.fromIterable(
        Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size))
      ),
      request
    )
  )

/** What of a memory an export must carry across, whatever its ids. */
const essence = (m: Results.MemoryRecord) => ({
  content: m.content_text,
  user_id: m.user_id,
  agent_id: m.agent_id,
  session_id: m.session_id,
  metadata: m.metadata,
  timestamp: m.timestamp,
  source: m.source
})

/** Every memory of the account, whole (a list gives summaries). */
const listAll = Effect.gen(function* () {
  const memory = yield* Memory
  const page = yield* memory.list({ limit: 100, include_superseded: true })
  return yield* Effect.forEach(page.items, (item) => memory.get(item.umo_id))
})

describe("export and import", () => {
  it.layer(TestMemory, { timeout: "180 seconds" })((it) => {
    it.effect(
      "refuses an export line with a field an export does not write, an empty body, and stores no repeat",
      () =>
        Effect.gen(function* () {
          const from = `from-${crypto.randomUUID().slice(0, 8)}`
          const to = `to-${crypto.randomUUID().slice(0, 8)}`
          yield* as(from)(
            Effect.flatMap(Memory, (memory) =>
              Effect.forEach(["Likes green tea.", "Reads on the train."], (content) =>
                memory.capture({ content, user_id: "ana", timestamp: "2024-02-02" })
              )
            )
          )
          const lines = (yield* as(from)(exportText())).trimEnd().split("\n")
          const changed = lines.map((line, i) =>
            i === 1 ? JSON.stringify({ ...JSON.parse(line), userid: "ana" }) : line
          )
          const summary = yield* as(to)(importText(`${changed.join("\n")}\n`))
          expect(summary.imported).toBe(1)
          expect(summary.failures).toEqual([{ line: 2, detail: expect.stringContaining("userid") }])
          // The same export again: the one imported is known, the other was never stored.
          expect((yield* as(to)(importText(`${lines.join("\n")}\n`))).imported).toBe(1)
          expect((yield* as(to)(Effect.flatMap(Memory, (m) => m.list()))).total_count).toBe(2)
          // An empty or blank body imports nothing, and says so.
          for (const blank of ["", " \n\t\n"])
            expect(yield* as(to)(importText(blank))).toMatchObject({ lines: 0, imported: 0, failed: 0 })
          // A Mem0 memory equal to a current one (text, scope, metadata, time) is that memory.
          const mem0 = {
            id: "m-1",
            memory: "Likes green tea.",
            user_id: "ana",
            created_at: "2024-02-02T00:00:00Z"
          }
          const repeat = yield* as(to)(importText(`${JSON.stringify(mem0)}\n`))
          expect(repeat.imported).toBe(1)
          expect((yield* as(to)(Effect.flatMap(Memory, (m) => m.list()))).total_count).toBe(2)
        })
    )

    it.effect(
      "carries memories, scopes, metadata, times and supersessions into another account, proofs kept",
      () =>
        Effect.gen(function* () {
          const memory = yield* Memory
          const from = `from-${crypto.randomUUID().slice(0, 8)}`
          const to = `to-${crypto.randomUUID().slice(0, 8)}`
          yield* as(from)(
            Effect.gen(function* () {
              const madrid = yield* memory.capture({
                content: "I have lived in Madrid for six years.",
                user_id: "maria",
                metadata: { topic: "home", tags: ["a", "b"] },
                timestamp: "2023-01-10T00:00:00Z"
              })
              yield* memory.capture({
                content: "We signed the lease on our flat in Lisbon.",
                user_id: "maria",
                agent_id: "planner",
                session_id: "s1",
                supersedes: [madrid.umo_id],
                timestamp: "2024-03-02T00:00:00Z"
              })
              // Captured later, its content older: superseded at once by a memory already there.
              yield* memory.capture({ content: "Our trip to Japan is in October.", timestamp: "2024-05-01" })
              yield* memory.capture({ content: "Our trip to Japan is in May.", timestamp: "2024-01-01" })
            })
          )
          const text = yield* as(from)(exportText({ embeddings: true }))
          const before = embedded
          const summary = yield* as(to)(importText(text))
          expect(summary).toMatchObject({
            format: "umo",
            imported: 4,
            failed: 0,
            verified: 4,
            linked: 2,
            complete: true
          })
          // The export's vectors are the store's embedder's: nothing was embedded again.
          expect(embedded).toBe(before)
          const original = yield* as(from)(listAll)
          const copied = yield* as(to)(listAll)
          expect(copied.map(essence).sort((a, b) => a.content.localeCompare(b.content))).toEqual(
            original.map(essence).sort((a, b) => a.content.localeCompare(b.content))
          )
          // The originals' ids and capture times are kept as provenance; the lines of versions are restored.
          const byContent = new Map(copied.map((m) => [m.content_text, m]))
          for (const m of original) {
            const copy = byContent.get(m.content_text)!
            expect(copy.imported_from).toEqual({
              format: "umo",
              id: m.umo_id,
              created_at: m.created_at,
              verified: true
            })
            expect(copy.superseded_by === null).toBe(m.superseded_by === null)
          }
          const ledger = yield* Ledger
          const target = yield* Effect.flatMap(Effect.service(AccountStore), (a) =>
            Effect.orDie(a.ensureAccount(to))
          )
          expect((yield* Effect.orDie(ledger.audit(target.account_id))).valid).toBe(true)
          for (const m of copied) expect((yield* as(to)(memory.proof(m.umo_id))).valid).toBe(true)

          // Again, whole or resumed from a cut: nothing twice.
          expect(yield* as(to)(importText(text))).toMatchObject({ imported: 0, already_imported: 4 })
          const other = `cut-${crypto.randomUUID().slice(0, 8)}`
          const lines = text.split("\n")
          expect(yield* as(other)(importText(lines.slice(0, 3).join("\n")))).toMatchObject({
            imported: 2,
            complete: false
          })
          expect(yield* as(other)(importText(text))).toMatchObject({
            imported: 2,
            already_imported: 2,
            complete: true
          })
          expect((yield* as(other)(listAll)).length).toBe(4)
        })
    )

    it.effect("reports a changed memory and a malformed line by number, then skips them or stops", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const from = `tamper-${crypto.randomUUID().slice(0, 8)}`
        yield* as(from)(
          Effect.forEach(
            ["Ada wrote the first program.", "Grace found a moth.", "Alan broke Enigma."],
            (content) => memory.capture({ content })
          )
        )
        const lines = (yield* as(from)(exportText())).trimEnd().split("\n")
        // Line 3 (the second memory) changed, line 4 no JSON.
        lines[2] = lines[2]!.replace("Grace found a moth.", "Grace found a bug.")
        lines.splice(3, 0, "{not json")
        const text = `${lines.join("\n")}\n`
        const skipped = yield* as(`${from}-skip`)(importText(text))
        expect(skipped).toMatchObject({ imported: 2, failed: 2, stopped_at: null, complete: true })
        expect(skipped.failures.map((f) => f.line)).toEqual([3, 4])
        expect(skipped.failures[0]!.detail).toMatch(/proof does not verify/)
        const stopped = yield* as(`${from}-stop`)(importText(text, { on_error: "stop" }))
        expect(stopped).toMatchObject({ imported: 1, failed: 1, stopped_at: { line: 3 } })
      })
    )

    it.effect("imports Mem0's get_all document and its memories a line each", () =>
      Effect.gen(function* () {
        const mem0 = [
          {
            id: "m-1",
            memory: "Likes to hike on weekends",
            user_id: "alex",
            agent_id: "coach",
            run_id: "chat-7",
            metadata: { mood: "calm" },
            categories: ["hobbies"],
            created_at: "2024-07-20T19:30:32.123456-07:00"
          },
          {
            id: "m-2",
            memory: "Is vegetarian",
            user_id: "alex",
            metadata: null,
            created_at: "2024-07-21 10:00:00"
          },
          { id: "m-3", memory: "Nested metadata", metadata: { deep: { a: 1 } } },
          { memory: "No id" }
        ]
        const document = JSON.stringify({ results: mem0 }, null, 2)
        const name = `mem0-${crypto.randomUUID().slice(0, 8)}`
        const summary = yield* as(name)(importText(document))
        expect(summary).toMatchObject({ format: "mem0", imported: 2, failed: 2, complete: true })
        const imported = yield* as(name)(listAll)
        const hike = imported.find((m) => m.content_text.startsWith("Likes"))!
        expect(hike).toMatchObject({
          user_id: "alex",
          agent_id: "coach",
          session_id: "chat-7",
          metadata: { mood: "calm", categories: ["hobbies"] },
          imported_from: {
            format: "mem0",
            id: "m-1",
            created_at: "2024-07-20T19:30:32.123456-07:00",
            verified: null
          }
        })
        expect(hike.timestamp).toBe("2024-07-21T02:30:32.123Z")
        // The same memories a line each, into the same account: each was imported already.
        const lines = `${mem0.map((m) => JSON.stringify(m)).join("\n")}\n`
        expect(yield* as(name)(importText(lines, { format: "mem0" }))).toMatchObject({
          imported: 0,
          already_imported: 2
        })
      })
    )

    it.effect("brings any set of memories across whole (property)", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const run = Effect.runPromiseWith(yield* Effect.context<Memory | AccountStore | Ledger>())
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(
                fc.record({
                  word: fc.constantFrom("tea", "rain", "Ada", "moth", "ink"),
                  user: fc.option(fc.constantFrom("u1", "u2"), { nil: undefined }),
                  tag: fc.option(fc.constantFrom("x", "y"), { nil: undefined }),
                  supersede: fc.boolean()
                }),
                { minLength: 1, maxLength: 6 }
              ),
              async (items) => {
                const tag = crypto.randomUUID().slice(0, 8)
                const ids: Array<string> = []
                await run(
                  as(`p-${tag}`)(
                    Effect.forEach(items, (item, i) =>
                      Effect.map(
                        memory.capture({
                          content: `Note ${i}: ${item.word}.`,
                          ...(item.user === undefined ? {} : { user_id: item.user }),
                          ...(item.tag === undefined ? {} : { metadata: { tag: item.tag } }),
                          ...(item.supersede && i > 0 && ids[i - 1] !== undefined
                            ? { supersedes: [ids[i - 1]!] }
                            : {}),
                          infer_updates: false
                        }),
                        (c) => ids.push(c.umo_id)
                      )
                    )
                  )
                )
                const text = await run(as(`p-${tag}`)(exportText()))
                const summary = await run(as(`q-${tag}`)(importText(text, {}, 1 + (tag.charCodeAt(0) % 50))))
                expect(summary).toMatchObject({ imported: items.length, failed: 0, complete: true })
                const original = await run(as(`p-${tag}`)(listAll))
                const copied = await run(as(`q-${tag}`)(listAll))
                const key = (m: Results.MemoryRecord) => `${m.content_text}|${m.superseded_by === null}`
                expect(copied.map(key).sort()).toEqual(original.map(key).sort())
              }
            ),
            { numRuns: 8 }
          )
        )
      })
    )
  })
})
