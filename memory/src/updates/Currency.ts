import { isNewer, type RankingFacts, type RecalledMemory, UpdateJudge } from "@umo/core"
import { Effect, Option } from "effect"
import { timed } from "../StageTimings.js"
import { pairKey, pairScores } from "./PairScores.js"
import { factScope, sameWords } from "./Scope.js"
import {
  currencyDepth,
  currentFirst,
  newestAnswerFirst,
  pastFirst,
  type QuestionReading
} from "./Succession.js"

/** How many of a question's best candidates the update judge reads, pairwise, for what is current. */
export const judgedDepth = 4

/** What the currency order reads of a search's candidates. */
export interface Candidates<E> {
  /** Each candidate's score so far (first stage, or fused with the reranker's). */
  readonly scores: ReadonlyMap<string, number>
  /** The facts of every candidate scored (and of their neighbours). */
  readonly facts: ReadonlyArray<RankingFacts>
  readonly reading: QuestionReading
  /** Each candidate's cosine similarity to the question. */
  readonly similarity: ReadonlyMap<string, number>
  /** How many of the best the caller will read (what it returns, at least). */
  readonly depth: number
  /**
   * The records of some candidates, those still in the search's selection: the order reads the
   * best `depth` (and `currencyDepth` for a question about how things stand) once it has them.
   */
  readonly records: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, RecalledMemory>, E>
}

/** The candidates in their currency order, read (those the selection holds), and what the order found out of date. */
export interface InCurrencyOrder {
  readonly ranked: ReadonlyArray<readonly [string, number]>
  readonly records: ReadonlyMap<string, RecalledMemory>
  readonly outdated: ReadonlySet<string>
  /** For a question about how things stand now, the memory read as its current answer. */
  readonly current: string | undefined
}

/** Best first; ties by id. */
export const byScore = (scores: ReadonlyMap<string, number>) =>
  [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))

/**
 * What is current goes first, in one pass over a search's candidates, each step on what the one
 * before left:
 * 1. by the facts capture stored (`currentFirst`): a superseded memory, or one a newer memory gives
 *    another value of, goes just below the newer; for a question about the past, the value before
 *    goes first instead (`pastFirst`);
 * 2. the best are read, and for a question about how things stand, by their words
 *    (`newestAnswerFirst`): the newest memory answering it goes first;
 * 3. for a question about now, by the update judge (`newerFirst`): what it says a newer memory
 *    outdates goes just below that memory.
 */
export const make = Effect.gen(function* () {
  const judge = Option.getOrUndefined(yield* Effect.serviceOption(UpdateJudge))
  const kept = pairScores()

  /**
   * Among the best candidates (`judgedDepth`), each two of one person (one fact scope) are put to
   * the update judge, older first, and where the newer makes the older out of date the older goes
   * just below it, and is marked outdated. This is the same judgement capture makes, for the pairs
   * capture never put to it (they were not near enough then, the judge was off, or the memories were
   * imported). Scores are kept by pair; a judge that fails leaves the order as it was.
   */
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

  const order = <E>(candidates: Candidates<E>): Effect.Effect<InCurrencyOrder, E> =>
    Effect.gen(function* () {
      const { facts, reading, similarity } = candidates
      const past = reading.aboutHowThingsStood
      const byFacts = currentFirst(candidates.scores, facts, reading.asked)
      const ranked = byScore(
        past ? pastFirst(byFacts.scores, facts, reading.asked, reading.question) : byFacts.scores
      )
      // A question about how things stand reads more candidates, to find what is current among them.
      const depth = Math.max(candidates.depth, past || reading.aboutNow ? currencyDepth : 0)
      const best = ranked.slice(0, depth)
      const records = yield* candidates.records(best.map(([id]) => id))
      const read = best.filter(([id]) => records.has(id))
      const byWords = newestAnswerFirst(read, records, similarity, facts, reading)
      const judged =
        reading.aboutNow && !past
          ? yield* newerFirst(byWords.ranked, records).pipe(timed("judge"))
          : { ranked: byWords.ranked, outdated: new Set<string>() }
      return {
        ranked: judged.ranked,
        records,
        outdated: new Set([...byFacts.outdated, ...byWords.outdated, ...judged.outdated]),
        current:
          byWords.current !== undefined && !judged.outdated.has(byWords.current) ? byWords.current : undefined
      }
    })

  return { order }
})
