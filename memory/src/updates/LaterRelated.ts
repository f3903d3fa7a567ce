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
import { pairKey, pairScores } from "./PairScores.js"
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
  const kept = pairScores()

  /** Puts to the judge the pairs it has not scored yet; a judge that fails or is slow scores none. */
  const judged = (pairs: ReadonlyArray<{ key: string; earlier: string; newer: string }>) =>
    Effect.gen(function* () {
      const unknown = pairs.filter((p) => !kept.has(p.key))
      if (judge === undefined || unknown.length === 0) return
      const scores = yield* judge.score(unknown).pipe(
        Effect.timeoutOrElse({ duration: judgeWaitMs, orElse: () => Effect.succeed(undefined) }),
        Effect.orElseSucceed(() => undefined)
      )
      if (scores !== undefined) for (const [i, p] of unknown.entries()) kept.keep(p.key, scores[i]!)
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
      // Each result with its later candidates, read once: what the judge and the links both use.
      const pairs = first.flatMap((memory, i) =>
        candidates[i]!.flatMap((c) => {
          const newer = read.get(c.umo_id)
          return newer === undefined || sameWords(newer.content, memory.content)
            ? []
            : [{ key: pairKey(memory, newer), memory, newer, earlier: memory.content, near: c.score }]
        })
      )
      yield* judged(
        pairs
          .filter((p) => p.near < linkedNearness)
          .sort((a, b) => b.near - a.near)
          .slice(0, judgedPerSearch)
          .map((p) => ({ key: p.key, earlier: p.earlier, newer: p.newer.content }))
      )
      const out = new Map<string, Array<LaterRelated>>(first.map((m) => [m.umo_id, []]))
      for (const { key, memory, newer, near } of pairs) {
        const base = { umo_id: newer.umo_id, content: newer.content, timestamp: newer.timestamp }
        const probability = kept.get(key)
        if (near >= linkedNearness)
          out.get(memory.umo_id)!.push({ ...base, link: "nearness", score: round(near) })
        else if (probability !== undefined && probability >= linkedProbability)
          out.get(memory.umo_id)!.push({ ...base, link: "judge", score: round(probability) })
      }
      for (const [id, links] of out)
        out.set(
          id,
          links.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp)).slice(0, linksPerResult)
        )
      return out
    })

  return { linked }
})

const round = (x: number) => Math.round(x * 1e4) / 1e4
