import { getHeapStatistics } from "node:v8"
import { it } from "@effect/vitest"
import { MemoryStore, type Selection, type Umo } from "@umo/core"
import { Database, IndexedMemorySearch } from "@umo/plugins"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { indexes, shardOf } from "../../src/search/IndexShard.js"
import { makeSearch } from "../../src/storage/SqlMemorySearch.js"
import { capturedPool, recapture, storageLayer } from "../storage/fixtures.js"
import { newAccount, sameAnswers, write } from "./sameAnswers.js"

const selections: ReadonlyArray<Selection> = [
  {},
  { filter: { kind: "condition", field: { kind: "text", name: "user_id" }, op: "eq", value: "user-1" } }
]

describe("IndexedMemorySearch within a budget and a shard", () => {
  it.layer(storageLayer(Database.pglite()), { timeout: "300 seconds" })((it) => {
    let pool: ReadonlyArray<Umo> = []
    let accounts: Array<{ readonly id: string; readonly memories: Array<Umo> }> = []

    it.effect("captures accounts of the pool's memories", () =>
      Effect.gen(function* () {
        pool = yield* capturedPool
        const store = yield* MemoryStore
        accounts = []
        for (let a = 0; a < 5; a++) {
          const id = yield* newAccount(`budget-${a}`)
          const memories = Array.from(
            { length: 6 + a },
            (_, i) => ({ ...recapture(pool[(a + i) % pool.length]!), user_id: `user-${i % 3}` }) satisfies Umo
          )
          yield* store.insertMany(
            id,
            memories.map((u) => write(u))
          )
          accounts.push({ id, memories })
        }
      })
    )

    const queriesOf = () =>
      pool.slice(0, 2).map((u) => ({ vector: u.embedding.chunks[0]!.vector, text: u.content }))
    const idsOf = (account: (typeof accounts)[number]) => [
      ...account.memories.map((u) => u.umo_id),
      crypto.randomUUID()
    ]

    it.effect(
      "accounts dropped for the budget and loaded again answer as the database does, and the index stays within it (property)",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const dims = pool[0]!.embedding.dimensions
          const database = makeSearch(sql)
          // What one account's index holds, to set a budget that fits one or two of them, never three.
          const probe = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, { preload: false })
          yield* probe.search.sync(accounts[4]!.id)
          const one = (yield* probe.index.status).bytes
          expect(one).toBeGreaterThan(0)
          const budgetBytes = Math.round(one * 1.5)
          const run = Effect.runPromiseWith(yield* Effect.context<never>())
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(fc.nat(accounts.length - 1), { minLength: 3, maxLength: 12 }),
                (picks) =>
                  run(
                    Effect.scoped(
                      Effect.gen(function* () {
                        const { search, index } = yield* IndexedMemorySearch.make(
                          sql,
                          dims,
                          yield* Effect.scope,
                          {
                            preload: false,
                            budgetBytes
                          }
                        )
                        for (const pick of picks) {
                          const account = accounts[pick]!
                          yield* sameAnswers(
                            search,
                            database,
                            account.id,
                            queriesOf(),
                            selections,
                            idsOf(account)
                          )
                          const status = yield* index.status
                          expect(status.bytes).toBeLessThanOrEqual(budgetBytes)
                        }
                        const distinct = new Set(picks).size
                        if (distinct >= 3) expect((yield* index.status).evictions).toBeGreaterThan(0)
                      })
                    )
                  )
              ),
              { numRuns: 8 }
            )
          )
        })
    )

    it.effect("an account too large for the budget is never loaded and answers from the database", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const dims = pool[0]!.embedding.dimensions
        const { search, index } = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
          preload: false,
          budgetBytes: 1_000
        })
        for (const account of accounts) {
          yield* sameAnswers(search, makeSearch(sql), account.id, queriesOf(), selections, idsOf(account))
          yield* index.ready(account.id)
        }
        expect(yield* index.status).toMatchObject({ serving: 0, memories: 0, bytes: 0 })
      })
    )

    it.effect("every shard answers every account, and indexes only its own (property)", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const dims = pool[0]!.embedding.dimensions
        const database = makeSearch(sql)
        const run = Effect.runPromiseWith(yield* Effect.context<never>())
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.integer({ min: 1, max: 4 }), (of) =>
              run(
                Effect.scoped(
                  Effect.gen(function* () {
                    let held = 0
                    for (let shard = 1; shard <= of; shard++) {
                      const { search, index } = yield* IndexedMemorySearch.make(
                        sql,
                        dims,
                        yield* Effect.scope,
                        {
                          preload: false,
                          shard: { index: shard, of }
                        }
                      )
                      for (const account of accounts) {
                        yield* sameAnswers(
                          search,
                          database,
                          account.id,
                          queriesOf(),
                          selections,
                          idsOf(account)
                        )
                        yield* index.ready(account.id)
                      }
                      const own = accounts.filter((a) => indexes({ index: shard, of }, a.id))
                      const status = yield* index.status
                      expect(status.serving).toBe(own.length)
                      expect(status.memories).toBe(own.reduce((n, a) => n + a.memories.length, 0))
                      expect(status.shard).toBe(`${shard}/${of}`)
                      held += status.serving
                    }
                    // Each account in exactly one shard.
                    expect(held).toBe(accounts.length)
                  })
                )
              )
            ),
            { numRuns: 6 }
          )
        )
      })
    )

    it.effect("the shard of an account is the same number everywhere", () =>
      Effect.sync(() => {
        // FNV-1a (32 bits) of the id's UTF-8 bytes, modulo n, plus one: what a load balancer's
        // script computes. The hashes are FNV's published test vectors.
        for (let of = 1; of <= 7; of++) {
          expect(shardOf("a", of)).toBe((0xe40c292c % of) + 1)
          expect(shardOf("foobar", of)).toBe((0xbf9cf968 % of) + 1)
        }
      })
    )

    it.effect("a budget larger than Node's heap can hold is lowered to what it can", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { index } = yield* IndexedMemorySearch.make(sql, 16, yield* Effect.scope, {
          preload: false,
          budgetBytes: 64 * 2 ** 30
        })
        const { budgetBytes } = yield* index.status
        expect(budgetBytes).toBe(IndexedMemorySearch.heapBound())
        expect(budgetBytes).toBeLessThan(getHeapStatistics().heap_size_limit)
      })
    )
  })
})
