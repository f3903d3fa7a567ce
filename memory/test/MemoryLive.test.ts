import { it } from "@effect/vitest"
import {
  AccountStore,
  type Answer,
  type AnswerModelShape,
  addMessage,
  Embedder,
  FileParserError,
  makeEmbedder,
  makePlugin
} from "@umo/core"
import {
  InvalidRequest,
  Memory,
  MemoryAccount,
  MemoryNotFound,
  memoryLayer,
  UnsupportedFile
} from "@umo/memory"
import { Database, defaultPlugins, ExtractiveAnswerModel, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Exit, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../plugins/test/storage/fixtures.js"

/** The model calls the embedder made, and the texts of each: batching shows as few, full calls. */
const modelCalls: Array<number> = []
const CountingEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    batchSize: 16,
    embedBatch: (texts) =>
      Effect.sync(() => {
        modelCalls.push(texts.length)
        return texts.map((t) => Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i) || 1) % 7))
      })
  })
)

/** A plugin of the deployment's own: counts the words of each memory into its extension. */
const wordCount = makePlugin({
  name: "word-count",
  version: "1.0.0",
  stage: "enrich",
  run: (draft) =>
    Effect.succeed(
      addMessage(
        {
          ...draft,
          extensions: { ...draft.extensions, "word-count": { words: draft.content.split(/\s+/).length } }
        },
        "info",
        "counted"
      )
    )
})

/** A local answer model of the deployment's own, made the default. */
const echo: AnswerModelShape = {
  id: "echo",
  kind: "local",
  method: "generative",
  answer: (request) =>
    Effect.succeed({
      answer: `${request.contexts.length} memories [1]`,
      citations: [],
      confidence: 0,
      method: "generative",
      question_type: "open"
    } satisfies Answer)
}

/** A parser for vCards, tried before the default ones; every other file falls through to them. */
const vcards = {
  parse: (file: { readonly filename: string; readonly bytes: Uint8Array }) =>
    file.filename.endsWith(".vcf")
      ? Effect.succeed({
          text: new TextDecoder()
            .decode(file.bytes)
            .replace(/^(BEGIN|END|VERSION):.*$/gm, "")
            .trim(),
          format: "vcard",
          metadata: {}
        })
      : Effect.fail(new FileParserError({ reason: "UnsupportedType", detail: "not a vCard" }))
}

const TestMemory = memoryLayer({
  plugins: [...defaultPlugins(), wordCount],
  answerModels: [ExtractiveAnswerModel.extractive, echo],
  defaultAnswerModel: "echo",
  fileParsers: [vcards]
}).pipe(
  Layer.provideMerge(
    StorageStack.layer({
      database: Database.pglite(),
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
      embedder: CountingEmbedder
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

describe("the Memory service", () => {
  it.layer(TestMemory, { timeout: "120 seconds" })((it) => {
    it.effect("keeps each account's memories to itself, whatever was captured (property)", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const run = Effect.runPromiseWith(yield* Effect.context<Memory | AccountStore>())
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.array(
                fc.record({ owner: fc.constantFrom("a", "b"), word: fc.constantFrom("tea", "rain", "Ada") }),
                {
                  minLength: 1,
                  maxLength: 6
                }
              ),
              async (captures) => {
                const tag = crypto.randomUUID().slice(0, 8)
                const owner = (o: string) => `${o}-${tag}`
                const ids = { a: [] as Array<string>, b: [] as Array<string> }
                for (const [i, c] of captures.entries()) {
                  const { umo_id } = await run(
                    as(owner(c.owner))(memory.capture({ content: `Note ${i}: ${c.word} with ${tag}.` }))
                  )
                  ids[c.owner as "a" | "b"].push(umo_id)
                }
                const asB = as(owner("b"))
                for (const id of ids.a) {
                  const calls: ReadonlyArray<Effect.Effect<unknown, unknown, MemoryAccount>> = [
                    memory.get(id),
                    memory.proof(id),
                    memory.explain(id),
                    memory.forget(id)
                  ]
                  for (const call of calls) {
                    const exit = await run(asB(Effect.exit(call)))
                    expect(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail").toBe(true)
                    expect(
                      Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error: unknown }).error : null
                    ).toBeInstanceOf(MemoryNotFound)
                  }
                }
                const listed = await run(asB(memory.list({ limit: 100 })))
                expect(listed.items.map((m) => m.umo_id).sort()).toEqual([...ids.b].sort())
                const found = await run(asB(memory.search({ query: `${tag} tea rain Ada`, limit: 50 })))
                expect(found.results.every((r) => ids.b.includes(r.umo_id))).toBe(true)
                // A's memories are all still there: B's attempts to forget them did nothing.
                expect((await run(as(owner("a"))(memory.list({ limit: 100 })))).total_count).toBe(
                  ids.a.length
                )
              }
            ),
            { numRuns: 12 }
          )
        )
        expect(run).toBeDefined()
      })
    )

    it.effect(
      "answers a repeated capture under one idempotency key once, and refuses the key for another",
      () =>
        as("idempotent")(
          Effect.gen(function* () {
            const memory = yield* Memory
            const key = { idempotencyKey: crypto.randomUUID() }
            const first = yield* memory.capture({ content: "Bought a bicycle on Saturday." }, key)
            expect(yield* memory.capture({ content: "Bought a bicycle on Saturday." }, key)).toEqual(first)
            const other = yield* Effect.flip(memory.capture({ content: "Sold the bicycle." }, key))
            expect(other).toBeInstanceOf(InvalidRequest)
            const badKey = yield* Effect.flip(
              memory.capture({ content: "x" }, { idempotencyKey: "not ascii é" })
            )
            expect(badKey.detail).toBe(
              "invalid headers: idempotency-key: must be 1 to 255 visible ASCII characters"
            )
            expect((yield* memory.list()).total_count).toBe(1)
          })
        )
    )

    it.effect("embeds a batch's items together: few model calls of up to the batch size", () =>
      as("batch")(
        Effect.gen(function* () {
          const memory = yield* Memory
          modelCalls.length = 0
          const items = Array.from({ length: 40 }, (_, i) => ({
            content: `Short note number ${i} about tea.`
          }))
          const { results } = yield* memory.batch({ items: [...items, { content: " " }, 7] })
          expect(results.filter((r) => r.success)).toHaveLength(40)
          expect(results.slice(40).map((r) => r.error?.status)).toEqual([422, 422])
          expect(modelCalls).toEqual([16, 16, 8])
        })
      )
    )

    it.effect("runs the configuration's plugins, answer models and file parsers", () =>
      as("configured")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const { umo_id } = yield* memory.capture({ content: "Ada Lovelace wrote notes on the engine." })
          const record = yield* memory.get(umo_id)
          expect(record.extensions).toEqual({ "word-count": { words: 7 } })
          expect(record.pipeline.map((p) => p.name)).toContain("word-count")
          const explained = yield* memory.explain(umo_id)
          expect(explained.human.key_reasons).toContain("Plugin word-count found: words: 7")
          expect(explained.audit.reproducible).toBe(true)

          expect(yield* memory.models).toEqual({
            local: [
              { id: "umo-extractive", method: "extractive", available: true },
              { id: "echo", method: "generative", available: true, default: true }
            ],
            cloud: []
          })
          expect((yield* memory.answer({ question: "Who wrote notes?" })).answer).toBe("1 memories [1]")
          expect(
            (yield* memory.answer({ question: "Who wrote notes?", model: "umo-extractive" })).method
          ).toBe("extractive")
          const unknown = yield* Effect.flip(memory.answer({ question: "Who?", model: "openai:gpt-4o" }))
          expect(unknown.detail).toBe(
            "invalid request body: model: must be one of umo-extractive, echo (GET /v1/ask/models)"
          )

          const card = new TextEncoder().encode("BEGIN:VCARD\nVERSION:4.0\nFN:Grace Hopper\nEND:VCARD\n")
          const uploaded = yield* memory.upload({ filename: "grace.vcf", bytes: card })
          expect(uploaded).toMatchObject({ format: "vcard", characters: "FN:Grace Hopper".length })
          const text = yield* memory.upload({
            filename: "n.md",
            bytes: new TextEncoder().encode("# Tea\n\nGreen.")
          })
          expect(text.format).toBe("markdown")
          const binary = yield* Effect.flip(
            memory.upload({ filename: "x.bin", bytes: Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]) })
          )
          expect(binary).toBeInstanceOf(UnsupportedFile)
        })
      )
    )

    it.effect("refuses bad input with the API's words and stores nothing of it", () =>
      as("refused")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const calls: ReadonlyArray<
            Effect.Effect<unknown, InvalidRequest | MemoryNotFound | unknown, MemoryAccount>
          > = [
            memory.capture({ content: "" }),
            memory.capture({ content: "ok", timestamp: "yesterday" }),
            memory.capture({ content: "ok", colour: "red" } as never),
            memory.batch({ items: [] }),
            memory.list({ limit: 0 }),
            memory.search({ query: "tea", limit: 51 }),
            memory.compare({ source_ulid: "a", candidate_ulid: "b", threshold: 2 }),
            memory.explain("00000000-0000-7000-8000-000000000000", { query: "x".repeat(1_001) }),
            memory.upload({ filename: "n.txt", bytes: new Uint8Array(0), source: "s".repeat(513) })
          ]
          const refusals = yield* Effect.forEach(calls, (call) => Effect.flip(call))
          for (const refused of refusals) expect(refused).toBeInstanceOf(InvalidRequest)
          expect(refusals.map((r) => (r as InvalidRequest).detail.split(":")[0])).toEqual([
            "invalid request body",
            "invalid request body",
            "invalid request body",
            "invalid request body",
            "invalid query string",
            "invalid request body",
            "invalid request body",
            "invalid query string",
            "invalid request body"
          ])
          expect((yield* memory.list()).total_count).toBe(0)
        })
      )
    )
  })
})
