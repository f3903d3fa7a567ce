import { randomUUID } from "node:crypto"
import { it } from "@effect/vitest"
import {
  AccountStore,
  type CaptureWrite,
  Ledger,
  type MemoryFilter,
  MemoryProvenance,
  MemorySearch,
  MemoryStore,
  sha256Hex,
  type Umo,
  verifyEntry,
  verifyReceipt
} from "@umo/core"
import { Effect, type Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { makeSearch } from "../../src/storage/SqlMemorySearch.js"
import { capturedPool, pipeline, recapture, TestEmbedder } from "./fixtures.js"
import { scopeCases } from "./scopes.js"
import { tamperCases } from "./tamper.js"

type Services = MemoryStore | MemorySearch | MemoryProvenance | Ledger | AccountStore | SqlClient.SqlClient

const newAccount = Effect.fn(function* (prefix: string) {
  const accounts = yield* AccountStore
  return (yield* accounts.ensureAccount(`${prefix}-${crypto.randomUUID()}`)).account_id
})

/** Writes of memories with nothing to supersede and no facts: plain captures. */
export const plainWrites = (umos: ReadonlyArray<Umo>): ReadonlyArray<CaptureWrite> =>
  umos.map((umo) => ({ umo, supersedes: [], facts: [], inferUpdates: false }))

/** The memories of one source. */
export const bySource = (source: string): MemoryFilter => ({
  kind: "condition",
  field: { kind: "text", name: "source" },
  op: "eq",
  value: source
})

const isSound = (p: Option.Option<{ valid: boolean; hash_chain_valid: boolean; chain_tampered: boolean }>) =>
  Option.isSome(p) && p.value.valid && p.value.hash_chain_valid && !p.value.chain_tampered

/** BM25's kept statistics (migration 0003) and postings (0007) equal a recount of the account's memories. */
const expectSearchStatsRecounted = Effect.fn(function* (account: string) {
  const sql = yield* SqlClient.SqlClient
  const postings = yield* sql<{
    lexeme: string
    umo_id: string
    occurrences: number
    memory_lexemes: number
  }>`
    SELECT lexeme, umo_id::text AS umo_id, occurrences, memory_lexemes FROM search_postings
    WHERE account_id = ${account} ORDER BY lexeme, umo_id`
  const unnested = yield* sql<{
    lexeme: string
    umo_id: string
    occurrences: number
    memory_lexemes: number
  }>`
    SELECT u.lexeme, m.umo_id::text AS umo_id, coalesce(array_length(u.positions, 1), 1) AS occurrences,
      length(m.search) AS memory_lexemes
    FROM memories m, unnest(m.search) u WHERE m.account_id = ${account} ORDER BY u.lexeme, m.umo_id`
  expect(postings).toEqual(unnested)
  const kept = yield* sql<{ lexeme: string; documents: number }>`
    SELECT lexeme, documents FROM search_terms WHERE account_id = ${account} ORDER BY lexeme`
  const recounted = yield* sql<{ lexeme: string; documents: number }>`
    SELECT u.lexeme, count(*)::int AS documents FROM memories m, unnest(m.search) u
    WHERE m.account_id = ${account} GROUP BY u.lexeme ORDER BY u.lexeme`
  expect(kept).toEqual(recounted)
  const [totals] = yield* sql<{ documents: string; lexemes: string }>`
    SELECT documents::text AS documents, lexemes::text AS lexemes FROM search_totals WHERE account_id = ${account}`
  const [count] = yield* sql<{ documents: string; lexemes: string }>`
    SELECT count(*)::text AS documents, coalesce(sum(length(search)), 0)::text AS lexemes
    FROM memories WHERE account_id = ${account}`
  expect(totals ?? { documents: "0", lexemes: "0" }).toEqual(count)
})

/** Runs fast-check over an effectful property with the suite's services. */
const property = <T>(
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Effect.Effect<void, unknown, Services>,
  numRuns = 100
) =>
  Effect.gen(function* () {
    const run = Effect.runPromiseWith(yield* Effect.context<Services>())
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => run(check(value))),
        { numRuns }
      )
    )
  })

/**
 * The storage contract: the same behaviour on every database the store runs on. `database`
 * is the full storage stack (see `storageLayer`).
 */
export const storageContract = <E>(name: string, database: Layer.Layer<Services, E>) =>
  describe(`storage contract on ${name}`, () => {
    it.layer(database, { timeout: "120 seconds" })((it) => {
      let pool: ReadonlyArray<Umo> = []
      const umo = (i: number) => recapture(pool[i % pool.length]!)

      it.effect("captures the pool through the real pipeline", () =>
        Effect.gen(function* () {
          pool = yield* capturedPool
          expect(pool.some((u) => u.embedding.chunks.length > 1)).toBe(true)
        })
      )

      it.effect("stores a memory and reads back every field", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const account = yield* newAccount("roundtrip")
          const original = umo(0)
          const { entry, receipt } = yield* store.insert(account, original)
          expect(entry).toMatchObject({
            seq: 1,
            kind: "capture",
            umo_id: original.umo_id,
            account_id: account
          })
          expect(receipt.split(".")).toHaveLength(3)
          const stored = Option.getOrThrow(yield* store.get(account, original.umo_id))
          const { embedding, ...fields } = original
          expect(stored).toMatchObject({ ...fields, account_id: account, embedding_model: embedding.model })
        })
      )

      it.effect("lists newest first with stable pages, totals and a source filter", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const account = yield* newAccount("list")
          const inserted: Array<Umo> = []
          for (let i = 0; i < 7; i++) {
            const u = umo(i)
            inserted.push(u)
            yield* store.insert(account, u)
          }
          const newestFirst = [...inserted].reverse().map((u) => u.umo_id)
          const pages = [
            yield* store.list(account, { limit: 3, offset: 0 }),
            yield* store.list(account, { limit: 3, offset: 3 }),
            yield* store.list(account, { limit: 3, offset: 6 })
          ]
          expect(pages.flatMap((p) => p.items.map((m) => m.umo_id))).toEqual(newestFirst)
          expect(pages.map((p) => p.total)).toEqual([7, 7, 7])
          const notes = yield* store.list(account, { limit: 100, offset: 0, filter: bySource("notes") })
          expect(notes.items.every((m) => m.source === "notes")).toBe(true)
          expect(notes.total).toBe(inserted.filter((u) => u.source === "notes").length)
        })
      )

      it.effect("keeps accounts apart in every call that takes an id", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const search = yield* MemorySearch
          const provenance = yield* MemoryProvenance
          const [alice, bob] = [yield* newAccount("alice"), yield* newAccount("bob")]
          const secret = umo(1)
          yield* store.insert(alice, secret)
          expect(Option.isNone(yield* store.get(bob, secret.umo_id))).toBe(true)
          expect(Option.isNone(yield* provenance.proof(bob, secret.umo_id))).toBe(true)
          expect(Option.isNone(yield* store.remove(bob, secret.umo_id))).toBe(true)
          expect((yield* store.list(bob, { limit: 100, offset: 0 })).total).toBe(0)
          const q = secret.embedding.chunks[0]!.vector
          yield* search.sync(alice)
          yield* search.sync(bob)
          expect(yield* search.searchVector(bob, q, { limit: 5 })).toEqual([])
          expect(yield* search.searchText(bob, "support group", { limit: 5 })).toEqual([])
          expect(isSound(yield* provenance.proof(alice, secret.umo_id))).toBe(true)
        })
      )

      it.effect("deletes content and vectors, chains a tombstone and signs a receipt", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const provenance = yield* MemoryProvenance
          const ledger = yield* Ledger
          const sql = yield* SqlClient.SqlClient
          const account = yield* newAccount("forget")
          const doomed = umo(7)
          const kept = umo(2)
          yield* store.insert(account, doomed)
          yield* store.insert(account, kept)
          const receipt = Option.getOrThrow(yield* store.remove(account, doomed.umo_id))
          expect(receipt).toMatchObject({ forgotten: true, umo_id: doomed.umo_id })
          const claims = yield* Effect.promise(() => verifyReceipt(receipt.receipt, ledger.publicKeyJwk))
          expect(claims.entry).toMatchObject({ kind: "delete", seq: 3, content_hash: doomed.content_hash })
          expect(claims.deleted_at).toBe(receipt.deleted_at)
          expect(Option.isNone(yield* store.get(account, doomed.umo_id))).toBe(true)
          expect(Option.isNone(yield* provenance.proof(account, doomed.umo_id))).toBe(true)
          expect(Option.isNone(yield* store.remove(account, doomed.umo_id))).toBe(true)
          const leftovers = yield* sql<{ n: number }>`
            SELECT (SELECT count(*) FROM memory_chunks WHERE account_id = ${account} AND umo_id = ${doomed.umo_id})
                 + (SELECT count(*) FROM memories WHERE account_id = ${account} AND umo_id = ${doomed.umo_id}) AS n`
          expect(Number(leftovers[0]!.n)).toBe(0)
          expect(isSound(yield* provenance.proof(account, kept.umo_id))).toBe(true)
          expect(yield* ledger.audit(account)).toEqual({ entries: 3, valid: true })
          const tampered = `${receipt.receipt.slice(0, -4)}AAAA`
          const rejected = yield* Effect.promise(() =>
            verifyReceipt(tampered, ledger.publicKeyJwk).then(
              () => false,
              () => true
            )
          )
          expect(rejected).toBe(true)
        })
      )

      it.effect("proves a memory, and the proof's entry verifies offline", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const provenance = yield* MemoryProvenance
          const ledger = yield* Ledger
          const account = yield* newAccount("proof")
          const u = umo(3)
          yield* store.insert(account, u)
          const proof = Option.getOrThrow(yield* provenance.proof(account, u.umo_id))
          expect(proof).toMatchObject({
            valid: true,
            hash_chain_valid: true,
            chain_tampered: false,
            content_hash: sha256Hex(u.content),
            semantic_hash: u.semantic_hash,
            source: u.source
          })
          expect(verifyEntry(proof.entry!, ledger.publicKeyJwk)).toBe(true)
          expect(verifyEntry({ ...proof.entry!, content_hash: "0".repeat(64) }, ledger.publicKeyJwk)).toBe(
            false
          )
        })
      )

      it.effect("reproduces the semantic hash by re-running the recorded pipeline on stored content", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const account = yield* newAccount("reproduce")
          const u = umo(5)
          yield* store.insert(account, u)
          const stored = Option.getOrThrow(yield* store.get(account, u.umo_id))
          const again = yield* pipeline.reproduceSemanticHash(stored).pipe(Effect.provide(TestEmbedder))
          expect(again).toBe(stored.semantic_hash)
        })
      )

      it.effect("finds candidates by vector and by text, within the account and source", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const search = yield* MemorySearch
          const account = yield* newAccount("search")
          const all = pool.map((_, i) => umo(i))
          for (const u of all) yield* store.insert(account, u)
          yield* search.sync(account)
          const target = all[4]!
          const byVector = yield* search.searchVector(account, target.embedding.chunks[0]!.vector, {
            limit: 3
          })
          expect(byVector[0]).toEqual({ umo_id: target.umo_id, score: expect.closeTo(1, 5) })
          expect(new Set(byVector.map((c) => c.umo_id)).size).toBe(byVector.length)
          const long = all[7]!
          const byChunk = yield* search.searchVector(account, long.embedding.chunks[1]!.vector, { limit: 1 })
          expect(byChunk[0]?.umo_id).toBe(long.umo_id)
          const byText = yield* search.searchText(account, "recalled cars software", { limit: 5 })
          expect(byText[0]?.umo_id).toBe(target.umo_id)
          const anyTerm = yield* search.searchText(account, "Austen zebra", { limit: 5 })
          expect(anyTerm.map((c) => c.umo_id)).toEqual([all[5]!.umo_id])
          const inChat = yield* search.searchVector(account, target.embedding.chunks[0]!.vector, {
            limit: 10,
            filter: bySource("chat")
          })
          expect(inChat.every((c) => all.find((u) => u.umo_id === c.umo_id)?.source === "chat")).toBe(true)

          // An account this small is scanned exactly; through the HNSW index's branch (taken by
          // every account when the exact scan stops at size 0) the same memories come back.
          const sql = yield* SqlClient.SqlClient
          const exact = makeSearch(sql, { exactBelow: Number.MAX_SAFE_INTEGER })
          const indexed = makeSearch(sql, { exactBelow: 0 })
          for (const u of all) {
            const vector = u.embedding.chunks[0]!.vector
            const [a, b] = yield* Effect.all([
              exact.searchVector(account, vector, { limit: 5 }),
              indexed.searchVector(account, vector, { limit: 5 })
            ])
            expect(b.map((c) => c.umo_id)).toEqual(a.map((c) => c.umo_id))
            expect(a).toHaveLength(Math.min(5, all.length))
            expect(a[0]).toEqual({ umo_id: u.umo_id, score: expect.closeTo(1, 5) })
          }
        })
      )

      it.effect(
        "ranks text by BM25, scores given ids exactly, reads many and finds timeline neighbours",
        () =>
          Effect.gen(function* () {
            const store = yield* MemoryStore
            const search = yield* MemorySearch
            const account = yield* newAccount("ranking")
            const all = pool.map((_, i) => umo(i))
            for (const u of all) yield* store.insert(account, u)
            yield* search.sync(account)
            const id = (i: number) => all[i]!.umo_id
            // "million" is in two memories, "Austen" in one: the rarer word weighs more.
            const byText = yield* search.searchText(account, "Austen million", { limit: 5 })
            expect(byText.map((c) => c.umo_id)).toEqual([
              id(5),
              ...[id(3), id(4)].filter((x) => byText.some((c) => c.umo_id === x))
            ])
            expect(byText.length).toBe(3)
            const onlyTwo = yield* search.searchText(account, "Austen million", {
              limit: 5,
              ids: [id(3), id(6)]
            })
            expect(onlyTwo.map((c) => c.umo_id)).toEqual([id(3)])
            const exact = yield* search.searchVector(account, all[4]!.embedding.chunks[0]!.vector, {
              limit: 5,
              ids: [id(0), id(4)]
            })
            expect(exact.map((c) => c.umo_id)).toEqual([id(4), id(0)])
            expect(exact[0]!.score).toBeCloseTo(1, 5)
            expect(
              yield* search.searchVector(account, all[4]!.embedding.chunks[0]!.vector, { limit: 5, ids: [] })
            ).toEqual([])

            // With room for one memory, only the rarer "Austen" finds candidates; "million" (two
            // memories) still counts in their scores and in the scores of given ids.
            const common = makeSearch(yield* SqlClient.SqlClient, {
              candidateBudget: 1
            })
            // (The search under test may be the in-process index: its sums agree to the last bits.)
            const close = (candidates: ReadonlyArray<{ umo_id: string; score: number }>) =>
              candidates.map((c) => ({ umo_id: c.umo_id, score: expect.closeTo(c.score, 9) }))
            const rareOnly = yield* common.searchText(account, "Austen million", { limit: 5 })
            expect(rareOnly).toEqual(close(byText.filter((c) => c.umo_id === id(5))))
            expect(yield* common.searchText(account, "million", { limit: 5 })).toEqual([])
            expect(
              yield* common.searchText(account, "Austen million", { limit: 5, ids: [id(3), id(4)] })
            ).toEqual(close(byText.filter((c) => c.umo_id === id(3) || c.umo_id === id(4))))

            const many = yield* store.getMany(account, [id(1), id(2), crypto.randomUUID()])
            expect(many.map((m) => m.umo_id).sort()).toEqual([id(1), id(2)].sort())
            expect(yield* store.getMany(yield* newAccount("other"), [id(1)])).toEqual([])
            // What search returns of a memory: those fields of the whole record, and only those.
            const recalled = yield* search.recalled(account, [id(1), id(2), crypto.randomUUID()])
            expect([...recalled].sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))).toEqual(
              [...many]
                .sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))
                .map((m) => ({
                  umo_id: m.umo_id,
                  content: m.content,
                  summary: m.summary,
                  entities: m.entities,
                  timestamp: m.timestamp,
                  created_at: m.created_at,
                  source: m.source,
                  user_id: m.user_id,
                  agent_id: m.agent_id,
                  session_id: m.session_id,
                  metadata: m.metadata,
                  categories: m.categories,
                  superseded_by: m.superseded_by,
                  expires_at: m.expires_at
                }))
            )
            expect(yield* search.recalled(yield* newAccount("other"), [id(1)])).toEqual([])
            const facts = yield* search.rankingFacts(account, [id(1), id(2), crypto.randomUUID()])
            expect([...facts].sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))).toEqual(
              [...many]
                .sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))
                .map((m) => ({
                  umo_id: m.umo_id,
                  timestamp: m.timestamp,
                  entities: m.entities,
                  superseded_by: null,
                  facts: []
                }))
            )
            const other = yield* newAccount("other")
            yield* search.sync(other)
            expect(yield* search.rankingFacts(other, [id(1)])).toEqual([])

            // Sources alternate (notes, chat, …): each memory's neighbours are the adjacent ones of its source.
            const around = yield* search.neighbours(account, [id(0), id(2), id(3), id(6)], {})
            const of = (i: number) => around.find((n) => n.umo_id === id(i))
            expect(of(0)).toEqual({ umo_id: id(0), previous: null, next: id(2) })
            expect(of(2)).toEqual({ umo_id: id(2), previous: id(0), next: id(4) })
            expect(of(3)).toEqual({ umo_id: id(3), previous: id(1), next: id(5) })
            expect(of(6)).toEqual({ umo_id: id(6), previous: id(4), next: null })
          })
      )

      it.effect("creates accounts, adds keys, finds them by hash and revokes them", () =>
        Effect.gen(function* () {
          const accounts = yield* AccountStore
          const name = `keys-${crypto.randomUUID()}`
          const account = yield* accounts.ensureAccount(name)
          expect(yield* accounts.ensureAccount(name)).toEqual(account)
          expect(account.account_id).toMatch(/^[0-9a-f-]{36}$/)
          const keyId = `umo_${crypto.randomUUID().slice(0, 8)}`
          const hash = sha256Hex(`${keyId}-secret`)
          yield* accounts.addKey(account.account_id, keyId, hash)
          const found = Option.getOrThrow(yield* accounts.findByKeyHash(hash))
          expect(found.account).toEqual(account)
          expect(found.key).toMatchObject({ key_id: keyId, status: "active" })
          expect(
            (yield* accounts.listKeys()).some((k) => k.key_id === keyId && k.account_name === name)
          ).toBe(true)
          expect(yield* accounts.revokeKey(keyId)).toBe(true)
          expect(yield* accounts.revokeKey(keyId)).toBe(false)
          expect(Option.isNone(yield* accounts.findByKeyHash(hash))).toBe(true)
        })
      )

      it.effect(
        "appends more entries in one call than one statement can bind (an erasure of 10,000)",
        () =>
          Effect.gen(function* () {
            const ledger = yield* Ledger
            const account = yield* newAccount("wide-append")
            const hash = "a".repeat(64)
            const events = Array.from({ length: 8_000 }, () => ({
              kind: "delete" as const,
              umo_id: randomUUID(),
              content_hash: hash,
              semantic_hash: hash,
              record_hash: hash
            }))
            const entries = yield* ledger.appendMany(account, events)
            expect(entries.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
            expect(yield* ledger.audit(account)).toEqual({ entries: 8_000, valid: true })
          }),
        120_000
      )

      it.effect("gives one linear chain under many concurrent captures and deletes", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const ledger = yield* Ledger
          const account = yield* newAccount("concurrent")
          const first = Array.from({ length: 40 }, (_, i) => umo(i))
          yield* Effect.forEach(first, (u) => store.insert(account, u), { concurrency: "unbounded" })
          expect(yield* ledger.audit(account)).toEqual({ entries: 40, valid: true })
          // Deletes and captures at once take the same locks in the same order: none may deadlock.
          yield* Effect.forEach(
            [
              ...first.slice(0, 20).map((u) => Effect.asVoid(store.remove(account, u.umo_id))),
              ...Array.from({ length: 20 }, (_, i) => Effect.asVoid(store.insert(account, umo(i))))
            ],
            (op) => op,
            { concurrency: "unbounded" }
          )
          expect(yield* ledger.audit(account)).toEqual({ entries: 80, valid: true })
          yield* expectSearchStatsRecounted(account)
        })
      )

      it.effect("stores one memory for identical captures racing, the others recorded as repeats", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const ledger = yield* Ledger
          const account = yield* newAccount("repeats")
          const said = umo(3)
          const receipts = yield* Effect.forEach(
            Array.from({ length: 12 }, () => recapture(said)),
            (u) => store.insertMany(account, [{ ...plainWrites([u])[0]!, dedupe: { timeGiven: false } }]),
            { concurrency: "unbounded" }
          )
          const ids = new Set(receipts.map(([r]) => r!.entry.umo_id))
          expect(ids.size).toBe(1)
          expect(receipts.filter(([r]) => r!.duplicate_of === undefined)).toHaveLength(1)
          expect((yield* store.list(account, { limit: 100, offset: 0 })).total).toBe(1)
          expect(yield* ledger.audit(account)).toEqual({ entries: 12, valid: true })
          const kinds = (yield* ledger.entries(account, { limit: 100 })).entries.map((e) => e.kind).sort()
          expect(kinds).toEqual(["capture", ...Array.from({ length: 11 }, () => "repeat")])
        })
      )

      it.effect("stores a batch whole or not at all, with its idempotent answer", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const provenance = yield* MemoryProvenance
          const ledger = yield* Ledger
          const account = yield* newAccount("batch")
          const batch = Array.from({ length: 5 }, (_, i) => umo(i))
          const write = {
            key: "k-1",
            fingerprint: "f-1",
            response: (r: ReadonlyArray<{ receipt: string }>) => r.length
          }
          const receipts = yield* store.insertMany(account, plainWrites(batch), write)
          expect(receipts.map((r) => r.entry.umo_id)).toEqual(batch.map((u) => u.umo_id))
          expect(receipts.map((r) => r.entry.seq)).toEqual([1, 2, 3, 4, 5])
          expect(yield* store.idempotentAnswer(account, "k-1")).toEqual(
            Option.some({ fingerprint: "f-1", response: 5 })
          )
          expect(Option.isNone(yield* store.idempotentAnswer(account, "k-2"))).toBe(true)
          expect(Option.isNone(yield* store.idempotentAnswer(yield* newAccount("other"), "k-1"))).toBe(true)
          // The same key again: the whole write fails and stores nothing.
          const again = [umo(5), umo(6)]
          const refused = yield* Effect.flip(store.insertMany(account, plainWrites(again), write))
          expect(refused.reason).toBe("IdempotencyKeyUsed")
          // A memory of another embedder in the middle: nothing of the batch is stored.
          const foreign = { ...umo(7), embedding: { ...umo(7).embedding, model: "another-model" } }
          expect(
            (yield* Effect.flip(store.insertMany(account, plainWrites([umo(8), foreign, umo(9)])))).reason
          ).toBe("EmbedderMismatch")
          expect((yield* store.list(account, { limit: 100, offset: 0 })).total).toBe(5)
          expect(yield* ledger.audit(account)).toEqual({ entries: 5, valid: true })
          for (const r of receipts)
            expect(isSound(yield* provenance.proof(account, r.entry.umo_id))).toBe(true)
        })
      )

      it.effect("stores one answer for one idempotency key, whatever races for it", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const account = yield* newAccount("idempotent")
          const outcomes = yield* Effect.forEach(
            Array.from({ length: 8 }, (_, i) => i),
            (i) =>
              Effect.result(
                store.insertMany(account, plainWrites([umo(i)]), {
                  key: "same",
                  fingerprint: "f",
                  response: () => i
                })
              ),
            { concurrency: "unbounded" }
          )
          expect(outcomes.filter((o) => o._tag === "Success")).toHaveLength(1)
          expect((yield* store.list(account, { limit: 100, offset: 0 })).total).toBe(1)
        })
      )

      it.effect("never deadlocks: batches, single captures and deletes at once in one account", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const ledger = yield* Ledger
          const account = yield* newAccount("deadlock")
          const seeded = yield* store.insertMany(
            account,
            plainWrites(Array.from({ length: 10 }, (_, i) => umo(i)))
          )
          yield* Effect.forEach(
            [
              ...Array.from({ length: 6 }, (_, b) =>
                Effect.asVoid(
                  store.insertMany(account, plainWrites(Array.from({ length: 5 }, (_, i) => umo(b * 5 + i))))
                )
              ),
              ...Array.from({ length: 10 }, (_, i) => Effect.asVoid(store.insert(account, umo(i + 3)))),
              ...seeded.map((r) => Effect.asVoid(store.remove(account, r.entry.umo_id)))
            ],
            (op) => op,
            { concurrency: "unbounded" }
          )
          expect(yield* ledger.audit(account)).toEqual({ entries: 10 + 30 + 10 + 10, valid: true })
          yield* expectSearchStatsRecounted(account)
        })
      )

      it.effect("answers only valid proofs and audits while captures append to the chain", () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const provenance = yield* MemoryProvenance
          const ledger = yield* Ledger
          const account = yield* newAccount("snapshot")
          const settled = Array.from({ length: 10 }, (_, i) => umo(i))
          for (const u of settled) yield* store.insert(account, u)
          // 60 captures, 300 proofs and 10 audits, interleaved: every read must see one snapshot, even
          // of the memories nearest the head, whose segment ends at the head rather than a checkpoint.
          const ops = Array.from({ length: 370 }, (_, i) =>
            i % 6 === 0 && i / 6 < 60
              ? Effect.as(store.insert(account, umo(i)), true)
              : i % 37 === 1
                ? Effect.map(ledger.audit(account), (a) => a.valid)
                : Effect.map(
                    provenance.proof(account, settled[settled.length - 1 - (i % 3)]!.umo_id),
                    isSound
                  )
          )
          const verdicts = yield* Effect.forEach(ops, (op) => op, { concurrency: 8 })
          expect(verdicts.filter((ok) => !ok)).toHaveLength(0)
        })
      )

      it.effect("keeps every remaining proof valid over random captures and deletions (property)", () =>
        property(
          fc.array(
            fc.oneof(
              fc.record({ op: fc.constant("capture" as const), account: fc.nat(2), text: fc.nat(7) }),
              fc.record({ op: fc.constant("delete" as const), account: fc.nat(2), pick: fc.nat(9) })
            ),
            { minLength: 1, maxLength: 10 }
          ),
          (ops) =>
            Effect.gen(function* () {
              const store = yield* MemoryStore
              const provenance = yield* MemoryProvenance
              const ledger = yield* Ledger
              const accounts = [yield* newAccount("p"), yield* newAccount("p"), yield* newAccount("p")]
              const live: Array<Array<string>> = [[], [], []]
              const gone: Array<{ account: string; umo_id: string; receipt: string }> = []
              for (const step of ops) {
                const account = accounts[step.account]!
                if (step.op === "capture") {
                  const u = umo(step.text)
                  yield* store.insert(account, u)
                  live[step.account]!.push(u.umo_id)
                } else if (live[step.account]!.length > 0) {
                  const [umoId] = live[step.account]!.splice(step.pick % live[step.account]!.length, 1)
                  const receipt = Option.getOrThrow(yield* store.remove(account, umoId!))
                  gone.push({ account, umo_id: umoId!, receipt: receipt.receipt })
                }
              }
              for (const [i, account] of accounts.entries()) {
                expect((yield* ledger.audit(account)).valid).toBe(true)
                yield* expectSearchStatsRecounted(account)
                expect((yield* store.list(account, { limit: 100, offset: 0 })).total).toBe(live[i]!.length)
                for (const umoId of live[i]!) {
                  const proof = yield* provenance.proof(account, umoId)
                  expect(isSound(proof)).toBe(true)
                  expect(verifyEntry(Option.getOrThrow(proof).entry!, ledger.publicKeyJwk)).toBe(true)
                }
              }
              for (const g of gone) {
                expect(Option.isNone(yield* store.get(g.account, g.umo_id))).toBe(true)
                const claims = yield* Effect.promise(() => verifyReceipt(g.receipt, ledger.publicKeyJwk))
                expect(claims.umo_id).toBe(g.umo_id)
              }
            })
        )
      )

      scopeCases(it, () => pool)

      tamperCases(it, () => pool)
    })
  })
