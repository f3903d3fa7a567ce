import type { Vitest } from "@effect/vitest"
import {
  AccountStore,
  type CaptureWrite,
  Ledger,
  type MemoryFilter,
  MemoryProvenance,
  MemorySearch,
  MemoryStore,
  matchesFilter,
  type StatedFact,
  type StoredMemory,
  type Umo,
  verifyProof,
  verifyReceipt
} from "@umo/core"
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import fc from "fast-check"
import { expect } from "vitest"
import { recapture } from "./fixtures.js"

type Services = MemoryStore | MemorySearch | MemoryProvenance | Ledger | AccountStore | SqlClient.SqlClient

const newAccount = Effect.fn(function* (prefix: string) {
  const accounts = yield* AccountStore
  return (yield* accounts.ensureAccount(`${prefix}-${crypto.randomUUID()}`)).account_id
})

const isSound = (p: Option.Option<{ valid: boolean; hash_chain_valid: boolean; chain_tampered: boolean }>) =>
  Option.isSome(p) && p.value.valid && p.value.hash_chain_valid && !p.value.chain_tampered

const write = (
  umo: Umo,
  options: {
    supersedes?: ReadonlyArray<string>
    facts?: ReadonlyArray<StatedFact>
    infer?: boolean
    categories?: ReadonlyArray<string>
  } = {}
): CaptureWrite => ({
  umo,
  supersedes: options.supersedes ?? [],
  facts: options.facts ?? [],
  inferUpdates: options.infer ?? false,
  categories: options.categories ?? []
})

// Values with case and accents that folding must treat alike in code and in SQL.
const texts = ["alice", "Alice", "bob", "ÉCOLE", "école", "ΟΔΟΣ", "İstanbul", "x y"]
const text = fc.constantFrom(...texts)
const scopeValue = fc.option(text, { nil: null })
const metadataValue = fc.oneof(
  text,
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, 1e6),
  fc.boolean(),
  fc.constant(null),
  fc.uniqueArray(text, { maxLength: 3 })
)
const metadata = fc.dictionary(fc.constantFrom("topic", "n", "tags", "flag"), metadataValue, { maxKeys: 4 })
const day = fc.integer({ min: 0, max: 9 }).map((d) => new Date(Date.UTC(2024, 0, 1 + d)).toISOString())

/** A memory's scope, metadata and time, as the property draws them. */
export const memoryFields = fc.record({
  user_id: scopeValue,
  agent_id: scopeValue,
  session_id: scopeValue,
  source: scopeValue,
  metadata,
  timestamp: day
})

/** The categories a memory is filed under, as the property draws them. */
const categoryList = fc.uniqueArray(text, { maxLength: 3 })

const field = fc.oneof(
  fc.constantFrom(
    { kind: "text", name: "user_id" } as const,
    { kind: "text", name: "agent_id" } as const,
    { kind: "text", name: "session_id" } as const,
    { kind: "text", name: "source" } as const
  ),
  fc.constantFrom({ kind: "time", name: "timestamp" } as const),
  fc.constantFrom("topic", "n", "tags", "flag", "absent").map((key) => ({ kind: "metadata", key }) as const),
  fc.constant({ kind: "categories" } as const)
)
const operand = fc.oneof(text, fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null))
const condition: fc.Arbitrary<MemoryFilter> = fc.oneof(
  fc.record({
    kind: fc.constant("condition" as const),
    field,
    op: fc.constantFrom("eq" as const, "gt" as const, "gte" as const, "lt" as const, "lte" as const),
    value: operand
  }),
  fc.record({
    kind: fc.constant("condition" as const),
    field,
    op: fc.constant("in" as const),
    values: fc.array(operand, { minLength: 1, maxLength: 3 })
  }),
  fc.record({
    kind: fc.constant("condition" as const),
    field,
    op: fc.constantFrom("contains" as const, "icontains" as const),
    value: fc.constantFrom("a", "Li", "É", "é", "σ", "i", "ΟΣ")
  }),
  fc.record({
    kind: fc.constant("condition" as const),
    field,
    op: fc.constant("exists" as const),
    value: fc.boolean()
  }),
  // Times compare as instants.
  fc.record({
    kind: fc.constant("condition" as const),
    field: fc.constant({ kind: "time", name: "timestamp" } as const),
    op: fc.constantFrom("eq" as const, "gt" as const, "lte" as const),
    value: day.map((iso) => Date.parse(iso))
  })
) as fc.Arbitrary<MemoryFilter>
/** A filter expression over every field, nested a few levels. */
export const filter: fc.Arbitrary<MemoryFilter> = fc.letrec<{ filter: MemoryFilter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    condition,
    fc.record({ kind: fc.constant("and" as const), filters: fc.array(tie("filter"), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("or" as const), filters: fc.array(tie("filter"), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("not" as const), filter: tie("filter") })
  ) as fc.Arbitrary<MemoryFilter>
})).filter

/**
 * Scopes, filters, supersessions and erasure, on every database: what the store selects is what
 * `matchesFilter` says, supersessions keep every proof and chain valid, and an erasure takes
 * exactly its scope.
 */
export const scopeCases = (it: Vitest.MethodsNonLive<Services>, pool: () => ReadonlyArray<Umo>) => {
  const umo = (i: number, fields: Partial<Umo> = {}): Umo => ({
    ...recapture(pool()[i % pool().length]!),
    ...fields
  })

  it.effect("selects, in list and in both searches, exactly what the filter admits (property)", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const search = yield* MemorySearch
      const run = Effect.runPromiseWith(yield* Effect.context<Services>())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.record({ fields: memoryFields, categories: categoryList }), {
              minLength: 1,
              maxLength: 14
            }),
            fc.array(fc.record({ filter, includeSuperseded: fc.boolean() }), { minLength: 1, maxLength: 6 }),
            fc.nat(),
            (memories, selections, seed) =>
              run(
                Effect.gen(function* () {
                  const account = yield* newAccount("filter")
                  const stored = memories.map(({ fields }, i) => umo(seed + i, fields))
                  yield* store.insertMany(
                    account,
                    stored.map((u, i) => write(u, { categories: memories[i]!.categories }))
                  )
                  // Some superseded: the first by the last, when there are two.
                  if (stored.length > 1)
                    yield* store.insertMany(account, [write(umo(seed), { supersedes: [stored[0]!.umo_id] })])
                  yield* search.sync(account)
                  const all = (yield* store.list(account, { limit: 100, offset: 0, includeSuperseded: true }))
                    .items
                  for (const selection of selections) {
                    const expected = all
                      .filter(
                        (m) =>
                          (selection.includeSuperseded || m.superseded_by === null) &&
                          matchesFilter(m, selection.filter)
                      )
                      .map((m) => m.umo_id)
                      .sort()
                    const listed = yield* store.list(account, { limit: 100, offset: 0, ...selection })
                    expect(listed.items.map((m) => m.umo_id).sort(), JSON.stringify(selection)).toEqual(
                      expected
                    )
                    expect(listed.total).toBe(expected.length)
                    const vector = pool()[seed % pool().length]!.embedding.chunks[0]!.vector
                    const near = yield* search.searchVector(account, vector, { limit: 100, ...selection })
                    expect(near.map((c) => c.umo_id).sort()).toEqual(expected)
                    const words = yield* search.searchText(account, stored[0]!.content, {
                      limit: 100,
                      ...selection
                    })
                    expect(words.every((c) => expected.includes(c.umo_id))).toBe(true)
                  }
                })
              )
          ),
          { numRuns: 25 }
        )
      )
    })
  )

  it.effect("gives one user's memories a full top 5 in an account many times larger", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const search = yield* MemorySearch
      const account = yield* newAccount("needle")
      // Above the size from which the account is searched through the HNSW index (2,000).
      const crowd = Array.from({ length: 2_400 }, (_, i) => umo(i, { user_id: `user-${i % 400}` }))
      for (let i = 0; i < crowd.length; i += 400)
        yield* store.insertMany(
          account,
          crowd.slice(i, i + 400).map((u) => write(u))
        )
      const mine = Array.from({ length: 8 }, (_, i) => umo(i, { user_id: "needle" }))
      yield* store.insertMany(
        account,
        mine.map((u) => write(u))
      )
      yield* search.sync(account)
      const onlyMine: MemoryFilter = {
        kind: "condition",
        field: { kind: "text", name: "user_id" },
        op: "eq",
        value: "needle"
      }
      const vector = mine[3]!.embedding.chunks[0]!.vector
      const near = yield* search.searchVector(account, vector, { limit: 5, filter: onlyMine })
      expect(near).toHaveLength(5)
      expect(near.every((c) => mine.some((m) => m.umo_id === c.umo_id))).toBe(true)
      expect(near[0]!.umo_id).toBe(mine[3]!.umo_id)
      const words = yield* search.searchText(account, mine[5]!.content, { limit: 5, filter: onlyMine })
      expect(words.length).toBeGreaterThan(0)
      expect(words.every((c) => mine.some((m) => m.umo_id === c.umo_id))).toBe(true)
    })
  )

  it.effect("supersedes what a capture names: readable, provable, out of default reads, in its history", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const provenance = yield* MemoryProvenance
      const ledger = yield* Ledger
      const account = yield* newAccount("supersede")
      const [older] = yield* store.insertMany(account, [write(umo(0, { user_id: "maria" }))])
      const newer = umo(1, { user_id: "maria" })
      const [receipt] = yield* store.insertMany(account, [
        write(newer, { supersedes: [older!.entry.umo_id] })
      ])
      expect(receipt!.supersedes).toEqual([older!.entry.umo_id])
      const old = Option.getOrThrow(yield* store.get(account, older!.entry.umo_id))
      expect(old.superseded_by).toBe(newer.umo_id)
      expect(Option.getOrThrow(yield* store.get(account, newer.umo_id)).supersedes).toEqual([old.umo_id])
      expect((yield* store.list(account, { limit: 10, offset: 0 })).items.map((m) => m.umo_id)).toEqual([
        newer.umo_id
      ])
      const proof = Option.getOrThrow(yield* provenance.proof(account, old.umo_id))
      expect(isSound(Option.some(proof))).toBe(true)
      expect(proof.supersession).toMatchObject({
        kind: "supersede",
        umo_id: old.umo_id,
        superseded_by: newer.umo_id
      })
      expect(verifyProof({ ...proof, umo_id: old.umo_id }, ledger.publicKeyJwk, old.content)).toBe(true)
      // A forged successor does not pass for the signed one.
      expect(verifyProof({ ...proof, superseded_by: crypto.randomUUID() }, ledger.publicKeyJwk)).toBe(false)
      expect(verifyProof({ ...proof, supersession: null }, ledger.publicKeyJwk)).toBe(false)
      expect(yield* ledger.audit(account)).toEqual({ entries: 3, valid: true })
      const line = Option.getOrThrow(yield* store.history(account, newer.umo_id)).map((m) => m.umo_id)
      expect(line).toEqual([old.umo_id, newer.umo_id])
      // Named twice, unknown, another account's: refused, nothing stored.
      const again = yield* Effect.flip(
        store.insertMany(account, [write(umo(2), { supersedes: [old.umo_id] })])
      )
      expect(again.reason).toBe("AlreadySuperseded")
      const unknown = crypto.randomUUID()
      expect(
        yield* Effect.flip(store.insertMany(account, [write(umo(3), { supersedes: [unknown] })]))
      ).toMatchObject({
        reason: "UnknownMemory",
        umo_id: unknown
      })
      const elsewhere = yield* newAccount("elsewhere")
      const theirs = yield* store.insert(elsewhere, umo(4))
      expect(
        (yield* Effect.flip(
          store.insertMany(account, [write(umo(5), { supersedes: [theirs.entry.umo_id] })])
        )).reason
      ).toBe("UnknownMemory")
      expect(Option.isNone(yield* store.history(account, theirs.entry.umo_id))).toBe(true)
      expect((yield* store.list(account, { limit: 10, offset: 0, includeSuperseded: true })).total).toBe(2)
      expect(yield* ledger.audit(account)).toEqual({ entries: 3, valid: true })
    })
  )

  it.effect(
    "infers updates from stated facts: a new value replaces, an addition does not, an older one yields",
    () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore
        const account = yield* newAccount("infer")
        const at = (day: number) => new Date(Date.UTC(2024, 0, day)).toISOString()
        const home = (value: string) => ({
          slot: "user:maria\u001fself\u001fresidence",
          value,
          mode: "set" as const
        })
        const pet = (value: string, mode: "add" | "end") => ({
          slot: "user:maria\u001fself\u001fpet",
          value,
          mode
        })
        const madrid = umo(0, { user_id: "maria", timestamp: at(1) })
        const rex = umo(1, { user_id: "maria", timestamp: at(2) })
        const both = umo(2, { user_id: "maria", timestamp: at(3) })
        yield* store.insertMany(account, [
          write(madrid, { facts: [home("madrid")], infer: true }),
          write(rex, { facts: [pet("rex", "add")], infer: true }),
          write(both, { facts: [home("madrid"), pet("rex", "add")], infer: true })
        ])
        const lisbon = umo(3, { user_id: "maria", timestamp: at(10) })
        const [moved] = yield* store.insertMany(account, [
          write(lisbon, { facts: [home("lisbon")], infer: true })
        ])
        // Madrid alone is replaced; the memory that also names Rex stays current.
        expect(moved!.supersedes).toEqual([madrid.umo_id])
        const bella = umo(4, { user_id: "maria", timestamp: at(11) })
        const [added] = yield* store.insertMany(account, [
          write(bella, { facts: [pet("bella", "add")], infer: true })
        ])
        expect(added!.supersedes).toEqual([])
        const [gone] = yield* store.insertMany(account, [
          write(umo(5, { user_id: "maria", timestamp: at(12) }), { facts: [pet("rex", "end")], infer: true })
        ])
        expect(gone!.supersedes).toEqual([rex.umo_id])
        // Told late: a move that happened before Lisbon is superseded by Lisbon at once.
        const [late] = yield* store.insertMany(account, [
          write(umo(6, { user_id: "maria", timestamp: at(5) }), { facts: [home("paris")], infer: true })
        ])
        expect(late).toMatchObject({ supersedes: [], superseded_by: lisbon.umo_id })
        // Another user's slot is another slot; inference off infers nothing.
        const [other] = yield* store.insertMany(account, [
          write(umo(7, { user_id: "jonas", timestamp: at(20) }), {
            facts: [{ ...home("oslo"), slot: "user:jonas\u001fself\u001fresidence" }],
            infer: true
          })
        ])
        expect(other!.supersedes).toEqual([])
        const [off] = yield* store.insertMany(account, [
          write(umo(8, { user_id: "maria", timestamp: at(21) }), { facts: [home("porto")], infer: false })
        ])
        expect(off!.supersedes).toEqual([])
        expect(Option.getOrThrow(yield* store.get(account, lisbon.umo_id)).superseded_by).toBeNull()
      })
  )

  it.effect("keeps the chain and every proof valid through supersessions and scope erasures (property)", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const provenance = yield* MemoryProvenance
      const ledger = yield* Ledger
      const run = Effect.runPromiseWith(yield* Effect.context<Services>())
      const step = fc.oneof(
        fc.record({ op: fc.constant("capture" as const), user: fc.nat(2), text: fc.nat(7) }),
        fc.record({
          op: fc.constant("supersede" as const),
          user: fc.nat(2),
          pick: fc.nat(9),
          text: fc.nat(7)
        }),
        fc.record({ op: fc.constant("forget" as const), pick: fc.nat(9) }),
        fc.record({ op: fc.constant("erase" as const), user: fc.nat(2) })
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) =>
            run(
              Effect.gen(function* () {
                const account = yield* newAccount("chain")
                const bystander = yield* newAccount("bystander")
                const kept = yield* store.insert(bystander, umo(0, { user_id: "u0" }))
                const receipts: Array<string> = []
                const current = () =>
                  Effect.map(store.list(account, { limit: 100, offset: 0 }), (page) => page.items)
                for (const s of steps) {
                  const user = "user_id" in s || "user" in s ? `u${(s as { user: number }).user}` : "u0"
                  if (s.op === "capture") yield* store.insert(account, umo(s.text, { user_id: user }))
                  else if (s.op === "supersede") {
                    const live = yield* current()
                    if (live.length > 0)
                      yield* store.insertMany(account, [
                        write(umo(s.text, { user_id: user }), {
                          supersedes: [live[s.pick % live.length]!.umo_id]
                        })
                      ])
                  } else if (s.op === "forget") {
                    const all = (yield* store.list(account, {
                      limit: 100,
                      offset: 0,
                      includeSuperseded: true
                    })).items
                    if (all.length > 0) yield* store.remove(account, all[s.pick % all.length]!.umo_id)
                  } else {
                    const scoped: MemoryFilter = {
                      kind: "condition",
                      field: { kind: "text", name: "user_id" },
                      op: "eq",
                      value: user
                    }
                    const erased = yield* store.erase(account, scoped)
                    const left = (yield* store.list(account, {
                      limit: 100,
                      offset: 0,
                      includeSuperseded: true,
                      filter: scoped
                    })).total
                    expect(left).toBe(0)
                    if (erased.forgotten > 0) receipts.push(erased.receipt)
                  }
                }
                expect((yield* ledger.audit(account)).valid).toBe(true)
                const all: ReadonlyArray<StoredMemory> = (yield* store.list(account, {
                  limit: 100,
                  offset: 0,
                  includeSuperseded: true
                })).items
                for (const memory of all) {
                  const proof = yield* provenance.proof(account, memory.umo_id)
                  expect(isSound(proof), memory.umo_id).toBe(true)
                  expect(verifyProof(Option.getOrThrow(proof), ledger.publicKeyJwk, memory.content)).toBe(
                    true
                  )
                }
                for (const receipt of receipts) {
                  const claims = yield* Effect.promise(() => verifyReceipt(receipt, ledger.publicKeyJwk))
                  expect(claims.type).toBe("umo-erasure-receipt")
                  expect(claims.umo_ids).toHaveLength(claims.count!)
                }
                expect(isSound(yield* provenance.proof(bystander, kept.entry.umo_id))).toBe(true)
              })
            )
          ),
          { numRuns: 30 }
        )
      )
    })
  )
}
