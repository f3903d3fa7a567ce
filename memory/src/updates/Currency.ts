import { isNewer, type RecalledMemory, UpdateJudge } from "@umo/core"
import { Effect, Option } from "effect"
import { pairKey, pairScores } from "./PairScores.js"
import { factScope, sameWords } from "./Scope.js"

/** How many of a question's best candidates the update judge reads, pairwise, for what is current. */
export const judgedDepth = 4

/**
 * For a question about how things stand now: among the best candidates (`judgedDepth`), each two of
 * one person (one fact scope) are put to the update judge, older first, and where the newer makes
 * the older out of date the older goes just below it, and is marked outdated. This is the same
 * judgement capture makes, for the pairs capture never put to it (they were not near enough then,
 * the judge was off, or the memories were imported). Scores are kept by pair; a judge that fails
 * leaves the order as it was.
 */
export const make = Effect.gen(function* () {
  const judge = Option.getOrUndefined(yield* Effect.serviceOption(UpdateJudge))
  const kept = pairScores()

  const newerFirst = (
    ranked: ReadonlyArray<readonly [string, number]>,
    byId: ReadonlyMap<string, RecalledMemory>
  ): Effect.Effect<{
    readonly ranked: ReadonlyArray<readonly [string, number]>
    readonly outdated: ReadonlySet<string>
  }> =>
    Effect.gen(function* () {
      const unchanged = { ranked, outdated: new Set<string>() }
      if (judge === undefined) return unchanged
      const top = ranked.slice(0, judgedDepth).flatMap(([id]) => {
        const m = byId.get(id)
        return m === undefined || m.superseded_by !== null ? [] : [m]
      })
      const pairs: Array<{
        readonly key: string
        readonly earlier: RecalledMemory
        readonly newer: RecalledMemory
      }> = []
      for (const a of top)
        for (const b of top)
          if (
            a.umo_id !== b.umo_id &&
            factScope(a) === factScope(b) &&
            !sameWords(a.content, b.content) &&
            isNewer(b, a)
          )
            pairs.push({ key: pairKey(a, b), earlier: a, newer: b })
      if (pairs.length === 0) return unchanged
      const unknown = pairs.filter((p) => !kept.has(p.key))
      const scores = yield* judge
        .score(unknown.map((p) => ({ earlier: p.earlier.content, newer: p.newer.content })))
        .pipe(
          Effect.map((s) => s as ReadonlyArray<number> | undefined),
          Effect.catch((error) =>
            Effect.as(Effect.logWarning(`search kept its order: ${error.message}`), undefined)
          )
        )
      if (scores === undefined) return unchanged
      for (const [i, p] of unknown.entries()) {
        kept.keep(p.key, scores[i]!)
      }
      const outdatedBy = new Map<string, string>()
      for (const p of pairs)
        if (kept.get(p.key)! >= judge.threshold) {
          const before = outdatedBy.get(p.earlier.umo_id)
          if (before === undefined || isNewer(p.newer, byId.get(before)!))
            outdatedBy.set(p.earlier.umo_id, p.newer.umo_id)
        }
      if (outdatedBy.size === 0) return unchanged
      // Each outdated memory just below the newest memory outdating it, newest changes first.
      const order = ranked.map(([id]) => id).filter((id) => !outdatedBy.has(id))
      const place = (id: string): void => {
        if (order.includes(id)) return
        const newer = outdatedBy.get(id)!
        if (!order.includes(newer)) place(newer)
        order.splice(order.indexOf(newer) + 1, 0, id)
      }
      for (const id of outdatedBy.keys()) place(id)
      const scoreOf = new Map(ranked)
      // Scores keep their order: each one no higher than the one before it.
      let floor = Number.POSITIVE_INFINITY
      const reordered = order.map((id) => {
        const own = scoreOf.get(id)!
        floor = own < floor ? own : floor - Math.max(1e-9, Math.abs(floor) * 1e-6)
        return [id, floor] as const
      })
      return { ranked: reordered, outdated: new Set(outdatedBy.keys()) }
    })

  return { newerFirst }
})
