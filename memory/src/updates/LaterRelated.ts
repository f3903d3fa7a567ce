import {
  allOf,
  anyMemory,
  type MemoryFilter,
  MemorySearch,
  type RecalledMemory,
  type StoreError,
  UpdateJudge
} from "@umo/core"
import { Effect, Option } from "effect"
import { judgedNearness } from "./Judging.js"
import { sameScope, sameWords } from "./Scope.js"

/** How many of a search's first results carry their later related memories. */
export const linkedResults = 3
/** Later memories shown per result, at most. */
export const linksPerResult = 3
/** From this nearness, a later memory is linked by nearness alone: it speaks of the same thing. */
export const linkedNearness = 0.6
/**
 * From this probability the judge links a later memory: lower than the bar for superseding, as
 * the link only offers it to the reader (an agent's own model) to decide.
 */
export const linkedProbability = 0.5
/** How long a search waits for the judge's links before it answers with the links by nearness. */
const judgeWaitMs = 400
/** Pairs a search puts to the judge at most (the nearest unsure ones): each costs about 30 ms. */
const judgedPerSearch = 3

/** A later memory of the same person linked to a result, with its time and why it is linked. */
export interface LaterRelated {
  readonly umo_id: string
  readonly content: string
  readonly timestamp: string
  /** `judge`: the update judge read it as likely making the result out of date; `nearness`: it speaks of the same thing. */
  readonly link: "judge" | "nearness"
  /** The judge's probability, or the cosine similarity for a link by nearness. */
  readonly score: number
}

/** As results show it (`later_related`). */
export const asResult = (link: LaterRelated) => ({
  umo_id: link.umo_id,
  content_text: link.content,
  timestamp: link.timestamp,
  link: link.link,
  score: link.score
})

const later = (memory: RecalledMemory): MemoryFilter => ({
  kind: "condition",
  field: { kind: "time", name: "timestamp" },
  op: "gt",
  value: Date.parse(memory.timestamp)
})

/**
 * For a search's first results, the later memories of the same person (the result's fact scope,
 * within the caller's own filter, so never another scope or account) near it in meaning, linked
 * where nearness or the update judge (when the deployment runs one) ties them to it: what an
 * agent's model reads to decide what holds now where UMO did not decide. Pair scores are kept, as
 * the pairs' texts never change under their ids. A failure of the judge leaves the links by
 * nearness; a failure to read leaves none.
 */
export const make = Effect.gen(function* () {
  const index = yield* MemorySearch
  const judge = Option.getOrUndefined(yield* Effect.serviceOption(UpdateJudge))
  const kept = new Map<string, number>()

  const judged = (pairs: ReadonlyArray<{ key: string; earlier: string; newer: string }>) =>
    Effect.gen(function* () {
      const unknown = pairs.filter((p) => !kept.has(p.key))
      if (judge !== undefined && unknown.length > 0) {
        const scores = yield* judge.score(unknown).pipe(
          Effect.timeoutOrElse({ duration: judgeWaitMs, orElse: () => Effect.succeed(undefined) }),
          Effect.orElseSucceed(() => undefined)
        )
        for (const [i, p] of unknown.entries()) {
          if (scores === undefined) break
          if (kept.size >= 20_000) kept.delete(kept.keys().next().value!)
          kept.set(p.key, scores[i]!)
        }
      }
      return kept
    })

  const linked = (
    accountId: string,
    results: ReadonlyArray<RecalledMemory>,
    filter: MemoryFilter | undefined
  ): Effect.Effect<ReadonlyMap<string, ReadonlyArray<LaterRelated>>, StoreError> =>
    Effect.gen(function* () {
      const first = results.slice(0, linkedResults)
      if (first.length === 0) return new Map()
      const vectors = yield* index.vectors(
        accountId,
        first.map((m) => m.umo_id)
      )
      const near = yield* Effect.forEach(
        first,
        (memory) => {
          const vector = vectors.get(memory.umo_id)
          return vector === undefined
            ? Effect.succeed([])
            : index.searchVector(accountId, vector, {
                limit: linksPerResult * 2,
                filter: allOf([filter ?? anyMemory, sameScope(memory), later(memory)])
              })
        },
        { concurrency: "unbounded" }
      )
      const candidates = near.map((found) => found.filter((c) => c.score >= judgedNearness))
      const ids = [...new Set(candidates.flat().map((c) => c.umo_id))]
      const read = new Map((yield* index.recalled(accountId, ids)).map((m) => [m.umo_id, m]))
      const pairs = first.flatMap((memory, i) =>
        candidates[i]!.flatMap((c) => {
          const newer = read.get(c.umo_id)
          return newer === undefined || sameWords(newer.content, memory.content)
            ? []
            : [
                {
                  key: `${memory.umo_id}>${c.umo_id}`,
                  earlier: memory.content,
                  newer: newer.content,
                  near: c.score
                }
              ]
        })
      )
      const scores = yield* judged(
        pairs
          .filter((p) => p.near < linkedNearness)
          .sort((a, b) => b.near - a.near)
          .slice(0, judgedPerSearch)
      )
      const out = new Map<string, Array<LaterRelated>>()
      for (const [i, memory] of first.entries()) {
        const links = candidates[i]!.flatMap((c): Array<LaterRelated> => {
          const newer = read.get(c.umo_id)
          if (newer === undefined || sameWords(newer.content, memory.content)) return []
          const probability = scores.get(`${memory.umo_id}>${c.umo_id}`)
          const base = { umo_id: newer.umo_id, content: newer.content, timestamp: newer.timestamp }
          if (c.score >= linkedNearness) return [{ ...base, link: "nearness", score: round(c.score) }]
          if (probability !== undefined && probability >= linkedProbability)
            return [{ ...base, link: "judge", score: round(probability) }]
          return []
        })
        out.set(
          memory.umo_id,
          links.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp)).slice(0, linksPerResult)
        )
      }
      return out
    })

  return { linked }
})

const round = (x: number) => Math.round(x * 1e4) / 1e4
