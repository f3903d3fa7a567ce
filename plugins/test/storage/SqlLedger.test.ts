import { it } from "@effect/vitest"
import {
  AccountStore,
  genesisHash,
  Ledger,
  type LedgerEntry,
  makeUmoId,
  trustedKeys,
  verifyEntry
} from "@umo/core"
import { Database } from "@umo/plugins"
import { Effect, type Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { storageLayer } from "./fixtures.js"
import { scratchDatabase } from "./ScratchDatabase.js"

const newAccount = Effect.fn(function* (prefix: string) {
  const accounts = yield* AccountStore
  return (yield* accounts.ensureAccount(`${prefix}-${crypto.randomUUID()}`)).account_id
})

/** A capture event of a fresh memory, or the deletion of `umoId`. */
const event = (kind: "capture" | "delete", umoId = makeUmoId(Date.now())) => ({
  kind,
  umo_id: umoId,
  content_hash: "a".repeat(64),
  semantic_hash: "b".repeat(64),
  record_hash: kind === "capture" ? "c".repeat(64) : "d".repeat(64)
})

/** Appends captures and deletions (of the oldest memory still there) as `ops` says, in one append. */
const appendOps = Effect.fn(function* (account: string, ops: ReadonlyArray<"capture" | "forget">) {
  const ledger = yield* Ledger
  const live: Array<string> = []
  const events = ops.map((op) => {
    const forgotten = op === "forget" ? live.shift() : undefined
    const next = forgotten === undefined ? event("capture") : event("delete", forgotten)
    if (next.kind === "capture") live.push(next.umo_id)
    return next
  })
  return yield* ledger.appendMany(account, events)
})

/** Every page of an account's chain, following `before` from the newest entry down. */
const walk = Effect.fn(function* (account: string, limit: number) {
  const ledger = yield* Ledger
  const pages: Array<{ entries: ReadonlyArray<LedgerEntry>; has_more: boolean }> = []
  let before: number | undefined
  for (;;) {
    const page = yield* ledger.entries(account, { before, limit })
    pages.push(page)
    if (!page.has_more) return pages
    before = page.entries.at(-1)!.seq
  }
})

/** Each entry is signed by the service and links to the entry one seq lower (genesis for the first). */
const expectVerifiedChain = (
  newestFirst: ReadonlyArray<LedgerEntry>,
  pinned: Parameters<typeof verifyEntry>[1]
) => {
  newestFirst.forEach((entry, i) => {
    expect(verifyEntry(entry, pinned), `seq ${entry.seq}`).toBe(true)
    const older = newestFirst[i + 1]
    expect(entry.prev_hash).toBe(older === undefined ? genesisHash : older.entry_hash)
  })
}

type Services = Ledger | AccountStore

const ledgerEntriesContract = <E>(name: string, stack: Layer.Layer<Services, E>) =>
  describe(`Ledger.entries on ${name}`, () => {
    it.layer(stack, { timeout: "120 seconds" })((it) => {
      it.effect(
        "walks the whole chain newest first, no gaps or repeats, for any history and page size (property)",
        () =>
          Effect.gen(function* () {
            const ledger = yield* Ledger
            // Pinned once: deriving the trusted keys per entry would cost more than reading the chain.
            const trusted = trustedKeys(ledger.publicKeyJwk)
            const run = Effect.runPromiseWith(yield* Effect.context<Services>())
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(
                  fc.array(fc.constantFrom("capture" as const, "forget" as const), { maxLength: 15 }),
                  fc.integer({ min: 1, max: 5 }),
                  (ops, limit) =>
                    run(
                      Effect.gen(function* () {
                        const account = yield* newAccount("walk")
                        const appended = yield* appendOps(account, ops)
                        const pages = yield* walk(account, limit)
                        const walked = pages.flatMap((p) => p.entries)
                        expect(walked).toEqual([...appended].reverse())
                        expect(walked.map((e) => e.seq)).toEqual(appended.map((_, i) => appended.length - i))
                        // Full pages until the last, which alone says there is no more.
                        expect(pages.map((p) => p.has_more)).toEqual(
                          pages.map((_, i) => i < pages.length - 1)
                        )
                        expect(pages.slice(0, -1).every((p) => p.entries.length === limit)).toBe(true)
                        expect(pages.at(-1)!.entries.length).toBeLessThanOrEqual(limit)
                        expectVerifiedChain(walked, trusted)
                      })
                    )
                ),
                { numRuns: 20 }
              )
            )
          })
      )

      it.effect("shows a deletion as a delete entry of that memory", () =>
        Effect.gen(function* () {
          const ledger = yield* Ledger
          const account = yield* newAccount("forget")
          const [captured] = yield* appendOps(account, ["capture", "capture", "forget"])
          const { entries, has_more } = yield* ledger.entries(account, { limit: 10 })
          expect(has_more).toBe(false)
          expect(entries.map((e) => [e.seq, e.kind])).toEqual([
            [3, "delete"],
            [2, "capture"],
            [1, "capture"]
          ])
          expect(entries[0]!.umo_id).toBe(captured!.umo_id)
          expectVerifiedChain(entries, ledger.publicKeyJwk)
        })
      )

      it.effect("reads only the account's own chain", () =>
        Effect.gen(function* () {
          const ledger = yield* Ledger
          const [a, b] = [yield* newAccount("a"), yield* newAccount("b")]
          yield* appendOps(a, ["capture", "capture"])
          expect(yield* ledger.entries(b, { limit: 100 })).toEqual({ entries: [], has_more: false })
          const [own] = yield* appendOps(b, ["capture"])
          expect((yield* ledger.entries(b, { limit: 100 })).entries).toEqual([own])
          expect((yield* ledger.entries(b, { before: 3, limit: 100 })).entries).toEqual([own])
          expect((yield* ledger.entries(a, { limit: 100 })).entries.every((e) => e.account_id === a)).toBe(
            true
          )
        })
      )

      it.effect("takes any `before`: past the head, past the integer column's range, and at the start", () =>
        Effect.gen(function* () {
          const ledger = yield* Ledger
          const account = yield* newAccount("bounds")
          const appended = yield* appendOps(account, ["capture", "capture", "capture"])
          const newestFirst = [...appended].reverse()
          for (const before of [4, 2 ** 31, Number.MAX_SAFE_INTEGER])
            expect(yield* ledger.entries(account, { before, limit: 3 })).toEqual({
              entries: newestFirst,
              has_more: false
            })
          expect(yield* ledger.entries(account, { before: 3, limit: 1 })).toEqual({
            entries: [appended[1]],
            has_more: true
          })
          expect(yield* ledger.entries(account, { before: 1, limit: 3 })).toEqual({
            entries: [],
            has_more: false
          })
        })
      )
    })
  })

ledgerEntriesContract("PGlite", storageLayer(Database.pglite()))

// CI provisions PostgreSQL + pgvector (scripts/provision-postgres.sh) and sets this variable.
const url = process.env["UMO_TEST_DATABASE_URL"]

describe.runIf(url)("PostgreSQL", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_ledger_entries_${process.pid}`)
  ledgerEntriesContract("PostgreSQL", storageLayer(scratch.layer))
})
