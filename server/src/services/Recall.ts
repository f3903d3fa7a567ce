import { Embedder, MemoryStore, type StoredMemory } from "@umo/core"
import { Context, Effect, Layer, Option } from "effect"
import { storeFailure } from "./Memories.js"

export interface Hit {
  readonly memory: StoredMemory
  /** Cosine similarity of the memory's best chunk to the query. */
  readonly score: number
}

/**
 * Finds an account's memories for a query: the query's embedding against every chunk vector
 * (best chunk per memory), as the first version of ranking; full text, entities and recency join
 * it in the recall-quality work.
 */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const embedder = yield* Embedder
  const search = (
    accountId: string,
    query: string,
    options: { limit: number; source?: string | undefined; candidates?: number }
  ) =>
    Effect.gen(function* () {
      const [vector] = yield* embedder.embed([query]).pipe(Effect.orDie)
      const candidates = yield* store
        .searchVector(accountId, vector!, {
          limit: options.candidates ?? options.limit,
          source: options.source
        })
        .pipe(Effect.catch(storeFailure))
      const hits = yield* Effect.forEach(candidates.slice(0, options.limit), (c) =>
        Effect.map(store.get(accountId, c.umo_id).pipe(Effect.catch(storeFailure)), (m) =>
          Option.map(m, (memory): Hit => ({ memory, score: Math.round(c.score * 1e6) / 1e6 }))
        )
      )
      // `total` counts every candidate found (up to `candidates`), for total_count and has_more.
      return { hits: hits.flatMap((h) => (Option.isSome(h) ? [h.value] : [])), total: candidates.length }
    })
  return { search }
})

export class Recall extends Context.Service<Recall, Effect.Success<typeof make>>()("@umo/server/Recall") {}

export const layer = Layer.effect(Recall, make)
