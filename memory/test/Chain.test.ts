import { it } from "@effect/vitest"
import {
  AccountStore,
  Embedder,
  genesisHash,
  Ledger,
  type LedgerEntry,
  makeEmbedder,
  makeUmoId,
  type SigningKeySet,
  verifyEntry
} from "@umo/core"
import { InvalidRequest, Memory, MemoryAccount, memoryLayer } from "@umo/memory"
import { Database, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { describe, expect } from "vitest"
import { testKeyPem } from "../../plugins/test/storage/fixtures.js"

const LetterEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-letters", dimensions: 8, maxChunkChars: 200 },
    embedBatch: (texts) =>
      Effect.succeed(texts.map((t) => Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i) || 1) % 7)))
  })
)

const TestMemory = memoryLayer({}).pipe(
  Layer.provideMerge(
    StorageStack.layer({
      database: Database.pglite(),
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
      embedder: LetterEmbedder
    })
  )
)

/** Runs `effect` as a new account named after `prefix`; answers the account's id too. */
const asNew = <A, E, R>(prefix: string, effect: (accountId: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const account = yield* Effect.orDie(
      (yield* AccountStore).ensureAccount(`${prefix}-${crypto.randomUUID()}`)
    )
    return yield* Effect.provideService(effect(account.account_id), MemoryAccount, account)
  })

/** Signed by a key of the service's JWK Set, and linked to the entry one seq lower. */
const expectVerified = (newestFirst: ReadonlyArray<LedgerEntry>, pinned: SigningKeySet) =>
  newestFirst.forEach((entry, i) => {
    expect(verifyEntry(entry, pinned), `seq ${entry.seq}`).toBe(true)
    expect(entry.prev_hash).toBe(newestFirst[i + 1]?.entry_hash ?? genesisHash)
  })

describe("Memory.chain", () => {
  it.layer(TestMemory, { timeout: "120 seconds" })((it) => {
    it.effect("pages the account's captures and deletions newest first, with next_before", () =>
      asNew("chain", () =>
        Effect.gen(function* () {
          const memory = yield* Memory
          const ids: Array<string> = []
          for (const content of ["Ada wrote a program.", "Grace found a moth.", "Alan broke a code."])
            ids.push((yield* memory.capture({ content })).umo_id)
          yield* memory.forget(ids[0]!)
          const all = yield* memory.chain()
          expect(all.entries.map((e) => [e.seq, e.kind, e.umo_id])).toEqual([
            [4, "delete", ids[0]],
            [3, "capture", ids[2]],
            [2, "capture", ids[1]],
            [1, "capture", ids[0]]
          ])
          expect(all).toMatchObject({ has_more: false, next_before: null })
          const first = yield* memory.chain({ limit: 2 })
          expect(first).toMatchObject({ entries: all.entries.slice(0, 2), has_more: true, next_before: 3 })
          const second = yield* memory.chain({ limit: 2, before: first.next_before! })
          expect(second).toMatchObject({ entries: all.entries.slice(2), has_more: false, next_before: null })
          const keys = yield* memory.signingKeys
          expectVerified(all.entries, keys as unknown as SigningKeySet)
        })
      )
    )

    it.effect("returns 50 entries by default and at most 100", () =>
      asNew("long", (accountId) =>
        Effect.gen(function* () {
          const memory = yield* Memory
          const ledger = yield* Ledger
          const events = Array.from({ length: 120 }, () => ({
            kind: "capture" as const,
            umo_id: makeUmoId(Date.UTC(2026, 0, 1)),
            content_hash: "a".repeat(64),
            semantic_hash: "b".repeat(64),
            record_hash: "c".repeat(64)
          }))
          yield* Effect.orDie(ledger.appendMany(accountId, events))
          const page = yield* memory.chain()
          expect(page.entries.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 120 - i))
          expect(page).toMatchObject({ has_more: true, next_before: 71 })
          const largest = yield* memory.chain({ limit: 100, before: 101 })
          expect(largest.entries).toHaveLength(100)
          expect(largest).toMatchObject({ has_more: false, next_before: null })
        })
      )
    )

    it.effect("shows another account nothing of this one's chain", () =>
      Effect.gen(function* () {
        const memory = yield* Memory
        const mine = yield* asNew("alice", () =>
          Effect.andThen(memory.capture({ content: "A secret of Alice." }), memory.chain())
        )
        expect(mine.entries).toHaveLength(1)
        const theirs = yield* asNew("bob", () => memory.chain({ limit: 100 }))
        expect(theirs).toEqual({ entries: [], has_more: false, next_before: null })
      })
    )

    it.effect("refuses limits and cursors out of range with InvalidRequest naming the rule", () =>
      asNew("invalid", () =>
        Effect.gen(function* () {
          const memory = yield* Memory
          for (const [request, detail] of [
            [{ limit: 0 }, "invalid query string: limit: Expected a value between 1 and 100"],
            [{ limit: 101 }, "invalid query string: limit: Expected a value between 1 and 100"],
            [{ limit: 2.5 }, "invalid query string: limit: Expected an integer"],
            [{ before: 0 }, "invalid query string: before: Expected a value between 1 and"],
            [{ before: "abc" }, "invalid query string: before: Expected number"],
            [{ offset: 1 }, "invalid query string: offset:"]
          ] as const) {
            const error = yield* Effect.flip(memory.chain(request as never))
            expect(error, JSON.stringify(request)).toBeInstanceOf(InvalidRequest)
            expect(error.detail, JSON.stringify(request)).toContain(detail)
          }
        })
      )
    )
  })
})
