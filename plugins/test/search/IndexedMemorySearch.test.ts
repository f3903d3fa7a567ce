import { it } from "@effect/vitest"
import {
  type AccountStore,
  type MemoryFilter,
  MemorySearch,
  MemoryStore,
  type Selection,
  type Umo
} from "@umo/core"
import { Database, IndexedMemorySearch, SearchIndex } from "@umo/plugins"
import { Effect, Exit, Scope } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { makeSearch } from "../../src/storage/SqlMemorySearch.js"
import { capturedPool, recapture, storageLayer } from "../storage/fixtures.js"
import { filter, memoryFields } from "../storage/scopes.js"
import { byId, newAccount, sameAnswers, write } from "./sameAnswers.js"

const step = fc.oneof(
  fc.record({ op: fc.constant("capture" as const), fields: memoryFields, text: fc.nat(7) }),
  fc.record({
    op: fc.constant("supersede" as const),
    fields: memoryFields,
    text: fc.nat(7),
    pick: fc.nat(20)
  }),
  fc.record({ op: fc.constant("forget" as const), pick: fc.nat(20) }),
  fc.record({ op: fc.constant("erase" as const), user: fc.constantFrom("alice", "bob", "Alice") })
)

describe("IndexedMemorySearch", () => {
  it.layer(storageLayer(Database.pglite()), { timeout: "240 seconds" })((it) => {
    let pool: ReadonlyArray<Umo> = []

    it.effect("captures the pool through the real pipeline", () =>
      Effect.gen(function* () {
        pool = yield* capturedPool
      })
    )

    it.effect(
      "answers as the database does after random captures, deletions, supersessions and erasures, also in an index that loaded before them (property)",
      () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const sql = yield* SqlClient.SqlClient
          const indexed = yield* MemorySearch
          const dims = pool[0]!.embedding.dimensions
          const database = makeSearch(sql)
          const run = Effect.runPromiseWith(
            yield* Effect.context<MemoryStore | AccountStore | MemorySearch>()
          )
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(step, { minLength: 1, maxLength: 16 }),
                fc.array(fc.record({ filter, includeSuperseded: fc.boolean() }), {
                  minLength: 1,
                  maxLength: 3
                }),
                (steps, selections) =>
                  run(
                    Effect.scoped(
                      Effect.gen(function* () {
                        const account = yield* newAccount("index")
                        // Another process's index on the same database: loaded before the changes,
                        // it learns of them only from the chain.
                        const other = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
                          preload: false
                        })
                        yield* other.search.sync(account)
                        const stored: Array<Umo> = []
                        const current = () =>
                          Effect.map(store.list(account, { limit: 100, offset: 0 }), (p) => p.items)
                        for (const s of steps) {
                          if (s.op === "capture" || s.op === "supersede") {
                            const umo = { ...recapture(pool[s.text % pool.length]!), ...s.fields }
                            const live = s.op === "supersede" ? yield* current() : []
                            const pick = s.op === "supersede" ? s.pick : 0
                            const older = live.length > 0 ? [live[pick % live.length]!.umo_id] : []
                            yield* store.insertMany(account, [write(umo, older)])
                            stored.push(umo)
                          } else if (s.op === "forget") {
                            if (stored.length > 0)
                              yield* store.remove(account, stored[s.pick % stored.length]!.umo_id)
                          } else {
                            const scoped: MemoryFilter = {
                              kind: "condition",
                              field: { kind: "text", name: "user_id" },
                              op: "eq",
                              value: s.user
                            }
                            yield* store.erase(account, scoped)
                          }
                          // The process's own index follows as it goes (some changes arrive one at a time).
                          if (s.op !== "erase") yield* indexed.sync(account)
                        }
                        const queries = pool
                          .slice(0, 3)
                          .map((u) => ({ vector: u.embedding.chunks[0]!.vector, text: u.content }))
                        const ids = [...stored.map((u) => u.umo_id), crypto.randomUUID()]
                        yield* sameAnswers(indexed, database, account, queries, selections, ids)
                        yield* sameAnswers(other.search, database, account, queries, selections, ids)
                      })
                    )
                  )
              ),
              { numRuns: 30 }
            )
          )
        })
    )

    it.effect(
      "loads a large account in the background, answering from the database meanwhile, then from the index",
      () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const sql = yield* SqlClient.SqlClient
          const dims = pool[0]!.embedding.dimensions
          const account = yield* newAccount("background")
          const memories = Array.from(
            { length: 40 },
            (_, i) => ({ ...recapture(pool[i % pool.length]!), user_id: `user-${i % 4}` }) satisfies Umo
          )
          yield* store.insertMany(
            account,
            memories.map((u) => write(u))
          )
          const scope = yield* Scope.make()
          const { search, index } = yield* IndexedMemorySearch.make(sql, dims, scope, {
            preload: false,
            loadInlineUpTo: 5,
            pageSize: 7
          })
          yield* search.sync(account)
          // Captured while the index loads: found by the search either way.
          const late = recapture(pool[3]!)
          yield* store.insertMany(account, [write(late)])
          yield* search.sync(account)
          const found = yield* search.searchVector(account, late.embedding.chunks[0]!.vector, {
            limit: 100
          })
          expect(found.map((c) => c.umo_id)).toContain(late.umo_id)
          yield* index.ready(account)
          expect((yield* index.status).serving).toBe(1)
          expect((yield* index.status).memories).toBe(41)
          const queries = pool
            .slice(0, 3)
            .map((u) => ({ vector: u.embedding.chunks[0]!.vector, text: u.content }))
          const selections: ReadonlyArray<Selection> = [
            {},
            {
              filter: {
                kind: "condition",
                field: { kind: "text", name: "user_id" },
                op: "eq",
                value: "user-1"
              }
            }
          ]
          yield* sameAnswers(search, makeSearch(sql), account, queries, selections, [
            ...memories.map((u) => u.umo_id),
            late.umo_id
          ])
          yield* Scope.close(scope, Exit.void)
        })
    )

    it.effect(
      "loads an index again without its removed memories once they outnumber the live ones, answering as the database does before and after",
      () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const sql = yield* SqlClient.SqlClient
          const dims = pool[0]!.embedding.dimensions
          const database = makeSearch(sql)
          const scope = yield* Scope.make()
          const { search, index } = yield* IndexedMemorySearch.make(sql, dims, scope, {
            preload: false,
            compactFrom: 20
          })
          const account = yield* newAccount("compacted")
          const memories = Array.from(
            { length: 300 },
            (_, i) => ({ ...recapture(pool[i % pool.length]!), user_id: `user-${i % 3}` }) satisfies Umo
          )
          yield* store.insertMany(
            account,
            memories.map((u) => write(u))
          )
          expect(yield* search.sync(account)).toBe("index")
          const queries = pool
            .slice(0, 3)
            .map((u) => ({ vector: u.embedding.chunks[0]!.vector, text: u.content }))
          const selections: ReadonlyArray<Selection> = [{}]
          const ids = [...memories.map((u) => u.umo_id), crypto.randomUUID()]
          for (const user of ["user-0", "user-1"])
            yield* store.erase(account, {
              kind: "condition",
              field: { kind: "text", name: "user_id" },
              op: "eq",
              value: user
            })
          // What an index loaded now holds: the 100 memories left.
          const fresh = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, { preload: false })
          expect(yield* fresh.search.sync(account)).toBe("index")
          const freshBytes = (yield* fresh.index.status).bytes
          // The 200 removals applied: the index answers at once, and is loaded again meanwhile.
          expect(yield* search.sync(account)).toBe("index")
          expect((yield* index.status).bytes).toBeGreaterThan(1.5 * freshBytes)
          yield* sameAnswers(search, database, account, queries, selections, ids)
          let bytes = Number.POSITIVE_INFINITY
          for (let i = 0; i < 600 && bytes > 1.1 * freshBytes; i++) {
            // Real time (it.effect's clock is a test clock): the new index loads in the background.
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
            bytes = (yield* index.status).bytes
          }
          expect(bytes).toBeLessThanOrEqual(1.1 * freshBytes)
          expect((yield* index.status).memories).toBe(100)
          // A capture after the change of places is found, and every answer is still the database's.
          const late = recapture(pool[5]!)
          yield* store.insertMany(account, [write(late)])
          expect(yield* search.sync(account)).toBe("index")
          yield* sameAnswers(search, database, account, queries, selections, [...ids, late.umo_id])
          yield* Scope.close(scope, Exit.void)
        })
    )

    it.effect(
      "follows this process's writes as they commit: after a burst past its backlog, the index still answers",
      () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const sql = yield* SqlClient.SqlClient
          const dims = pool[0]!.embedding.dimensions
          const scope = yield* Scope.make()
          const { search } = yield* IndexedMemorySearch.make(sql, dims, scope, { preload: false, backlog: 6 })
          const burst = (account: string, follow: boolean) =>
            Effect.gen(function* () {
              const memories = Array.from({ length: 24 }, (_, i) => recapture(pool[i % pool.length]!))
              for (let i = 0; i < memories.length; i += 4) {
                yield* store.insertMany(
                  account,
                  memories.slice(i, i + 4).map((u) => write(u))
                )
                if (follow) yield* search.follow(account)
              }
              return memories
            })
          const followed = yield* newAccount("followed")
          const unfollowed = yield* newAccount("unfollowed")
          for (const account of [followed, unfollowed]) {
            yield* store.insertMany(account, [write(recapture(pool[0]!))])
            expect(yield* search.sync(account)).toBe("index")
          }
          // 24 captures, 4 at a time: six times the backlog a search applies itself.
          const written = yield* burst(followed, true)
          yield* burst(unfollowed, false)
          // The follower runs in the background; it has caught up once it holds the last capture.
          for (let i = 0; i < 200; i++) {
            const last = written.at(-1)!
            const near = yield* search.searchVector(followed, last.embedding.chunks[0]!.vector, {
              limit: 100
            })
            if (near.some((c) => c.umo_id === last.umo_id)) break
            yield* Effect.sleep("10 millis")
          }
          expect(yield* search.sync(followed)).toBe("index")
          expect(yield* search.sync(unfollowed)).toBe("database")
          yield* Scope.close(scope, Exit.void)
        })
    )

    it.effect("holds what a search returns of a memory, and reads a long document's from the store", () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore
        const search = yield* MemorySearch
        const index = yield* SearchIndex
        const database = makeSearch(yield* SqlClient.SqlClient)
        const account = yield* newAccount("recalled")
        const turn = recapture(pool[1]!)
        // Longer than the index holds (IndexRows.longestHeld): its text stays in the store.
        const document = { ...recapture(pool[2]!), content: "A page of the manual. ".repeat(250) }
        yield* store.insertMany(account, [write(turn), write(document)])
        yield* index.ready(account)
        expect(yield* search.sync(account)).toBe("index")
        const ids = [turn.umo_id, document.umo_id, crypto.randomUUID()]
        const found = byId(yield* search.recalled(account, ids))
        expect(found.map((m) => [m.umo_id, m.content])).toEqual(
          byId([turn, document]).map((m) => [m.umo_id, m.content])
        )
        expect(found).toEqual(byId(yield* database.recalled(account, ids)))
      })
    )

    it.effect("keeps a search's account apart: another account's index never answers for it", () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore
        const search = yield* MemorySearch
        const index = yield* SearchIndex
        const [alice, bob] = [yield* newAccount("alice"), yield* newAccount("bob")]
        const secret = recapture(pool[1]!)
        yield* store.insertMany(alice, [write(secret)])
        yield* index.ready(alice)
        yield* index.ready(bob)
        expect(yield* search.searchVector(bob, secret.embedding.chunks[0]!.vector, { limit: 5 })).toEqual([])
        expect(yield* search.searchText(bob, secret.content, { limit: 5 })).toEqual([])
        expect(yield* search.rankingFacts(bob, [secret.umo_id])).toEqual([])
        expect(yield* search.recalled(bob, [secret.umo_id])).toEqual([])
        expect(yield* search.neighbours(bob, [secret.umo_id], {})).toEqual([])
        expect(
          (yield* search.searchVector(alice, secret.embedding.chunks[0]!.vector, { limit: 5 }))[0]?.umo_id
        ).toBe(secret.umo_id)
      })
    )
  })
})
