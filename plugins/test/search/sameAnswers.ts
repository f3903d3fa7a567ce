import {
  AccountStore,
  type Candidate,
  type CaptureWrite,
  type MemorySearchShape,
  type Selection,
  type Umo
} from "@umo/core"
import { Effect } from "effect"
import { expect } from "vitest"

export const newAccount = Effect.fn(function* (prefix: string) {
  const accounts = yield* AccountStore
  return (yield* accounts.ensureAccount(`${prefix}-${crypto.randomUUID()}`)).account_id
})

export const write = (umo: Umo, supersedes: ReadonlyArray<string> = []): CaptureWrite => ({
  umo,
  supersedes,
  facts: [],
  inferUpdates: false
})

/** Candidates with scores rounded past the two engines' float differences (pgvector sums in float4). */
const rounded = (candidates: ReadonlyArray<Candidate>) =>
  candidates.map((c) => ({ umo_id: c.umo_id, score: Math.round(c.score * 1e5) / 1e5 }))

export const byId = <A extends { readonly umo_id: string }>(xs: ReadonlyArray<A>) =>
  [...xs].sort((a, b) => (a.umo_id < b.umo_id ? -1 : 1))

/**
 * What the index answers is what the database answers: every call of the MemorySearch port, for
 * queries and selections drawn at random, after the account went through random captures,
 * deletions, supersessions and erasures.
 */
export const sameAnswers = (
  indexed: MemorySearchShape,
  database: MemorySearchShape,
  account: string,
  queries: ReadonlyArray<{ readonly vector: ReadonlyArray<number>; readonly text: string }>,
  selections: ReadonlyArray<Selection>,
  ids: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    yield* indexed.sync(account)
    for (const selection of selections) {
      const label = JSON.stringify(selection)
      for (const query of queries) {
        for (const options of [
          { limit: 100, ...selection },
          { limit: 3, ...selection },
          { limit: 100, ids: ids.slice(0, 5), ...selection }
        ]) {
          const [a, b] = yield* Effect.all([
            indexed.searchVector(account, query.vector, options),
            database.searchVector(account, query.vector, options)
          ])
          expect(rounded(a), label).toEqual(rounded(b))
          const [c, d] = yield* Effect.all([
            indexed.searchText(account, query.text, options),
            database.searchText(account, query.text, options)
          ])
          expect(rounded(c), label).toEqual(rounded(d))
        }
      }
      const [e, f] = yield* Effect.all([
        indexed.neighbours(account, ids, selection),
        database.neighbours(account, ids, selection)
      ])
      expect(byId(e), label).toEqual(byId(f))
    }
    const [g, h] = yield* Effect.all([
      indexed.rankingFacts(account, ids),
      database.rankingFacts(account, ids)
    ])
    expect(byId(g)).toEqual(byId(h))
    const [i, j] = yield* Effect.all([indexed.recalled(account, ids), database.recalled(account, ids)])
    expect(byId(i)).toEqual(byId(j))
    const [k, l] = yield* Effect.all([indexed.vectors(account, ids), database.vectors(account, ids)])
    expect(new Set(k.keys())).toEqual(new Set(l.keys()))
    for (const [id, vector] of k)
      expect(vector.map((x) => Math.round(x * 1e5))).toEqual(l.get(id)!.map((x) => Math.round(x * 1e5)))
  })
