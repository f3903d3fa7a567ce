import {
  type CaptureWrite,
  cosineSimilarity,
  isNewer,
  type JudgedPair,
  MemorySearch,
  type StoreError,
  UpdateJudge,
  type UpdateJudgeShape
} from "@umo/core"
import { Config, Effect, Option } from "effect"
import { factScope, sameScope, sameWords } from "./Scope.js"

/**
 * How many of a new memory's nearest memories of its scope the judge reads: each pair costs the
 * mpnet student about 30 ms on two cores, and an update is nearly always among the nearest.
 */
export const judgedNeighbours = 3

/**
 * How near in meaning (cosine of the first chunks) an earlier memory must be to be judged at all:
 * below it, two memories of one person are about different things and the model is not asked.
 * Chosen on the training pairs (training/judge/gate.py): 96.6 % of their updates are at least this
 * near (the median 0.50), and memories about something else mostly are not.
 */
export const judgedNearness = 0.2

/** A memory longer than this is a document, not a fact that changes: it is never judged. */
export const judgedLength = 1_000

/** How long capture waits for the judge (`UMO_JUDGE_TIMEOUT_MS`, default 5 s) before storing without it. */
export const judgeTimeoutConfig = Config.Number("UMO_JUDGE_TIMEOUT_MS").pipe(Config.withDefault(5_000))

interface Judged {
  readonly umo_id: string
  readonly content: string
  readonly timestamp: string
  readonly scope: string
  /** A write's first chunk vector (stored memories are compared by the index). */
  readonly vector?: ReadonlyArray<number> | undefined
}

/** What the judge decided for a capture's writes, and the warning when it could not decide. */
export interface JudgedWrites {
  readonly writes: ReadonlyArray<CaptureWrite>
  readonly warning: string | null
}

/**
 * The update judge at capture: each write that infers updates is paired with the nearest current
 * memories of its scope, stored or among the batch's other writes (so a batch of a hundred asks
 * about at most three hundred pairs), each pair in content-time order, and the judge scores all of
 * a capture's pairs in one call. A pair at or above the judge's threshold makes its earlier memory
 * out of date: the write records whom it outdates (`judged.outdates`), or by whom it is outdated
 * (`judged.outdatedBy`, an older import), and the store supersedes them under the account's lock. A judge that fails or times out decides
 * nothing: the writes are stored as they are, with a warning.
 */
export const make = Effect.gen(function* () {
  const judge: UpdateJudgeShape | undefined = Option.getOrUndefined(yield* Effect.serviceOption(UpdateJudge))
  const search = yield* MemorySearch
  const timeoutMs = yield* judgeTimeoutConfig

  /**
   * A write's nearest current memories of its scope, stored or among the batch's other writes:
   * at most `judgedNeighbours`, each at least `judgedNearness` near, nearest first.
   */
  const neighbours = (
    accountId: string,
    write: CaptureWrite,
    batch: ReadonlyArray<Judged>
  ): Effect.Effect<ReadonlyArray<Judged>, StoreError> =>
    Effect.gen(function* () {
      const vector = write.umo.embedding.chunks[0]?.vector
      if (vector === undefined) return []
      const scope = factScope(write.umo)
      type Near = { readonly umo_id: string; readonly score: number; readonly judged?: Judged }
      const stored: ReadonlyArray<Near> = (yield* search.searchVector(accountId, vector, {
        limit: judgedNeighbours + 1,
        filter: sameScope(write.umo)
      })).filter((c) => c.umo_id !== write.umo.umo_id)
      const inBatch = batch.flatMap(
        (b): ReadonlyArray<Near> =>
          b.umo_id !== write.umo.umo_id && b.scope === scope && b.vector !== undefined
            ? [{ umo_id: b.umo_id, score: cosineSimilarity(vector, b.vector), judged: b }]
            : []
      )
      const nearest = [...stored, ...inBatch]
        .filter((c) => c.score >= judgedNearness)
        .sort((a, b) => b.score - a.score)
        .slice(0, judgedNeighbours)
      const read = nearest.flatMap((c) => (c.judged === undefined ? [c.umo_id] : []))
      const found = read.length === 0 ? [] : yield* search.recalled(accountId, read)
      return [
        ...found
          .filter((m) => m.superseded_by === null && m.content.length <= judgedLength)
          .map(
            (m): Judged => ({
              umo_id: m.umo_id,
              content: m.content,
              timestamp: m.timestamp,
              scope: factScope(m)
            })
          ),
        ...nearest.flatMap((c) => (c.judged === undefined ? [] : [c.judged]))
      ]
    })

  const decide = (
    accountId: string,
    writes: ReadonlyArray<CaptureWrite>,
    judging: UpdateJudgeShape
  ): Effect.Effect<JudgedWrites> =>
    Effect.gen(function* () {
      const asked = writes.filter((w) => w.judge === true && w.umo.content.length <= judgedLength)
      if (asked.length === 0) return { writes, warning: null }
      yield* search.sync(accountId)
      const own = new Map(
        asked.map((w): [string, Judged] => [
          w.umo.umo_id,
          {
            umo_id: w.umo.umo_id,
            content: w.umo.content,
            timestamp: w.umo.timestamp,
            scope: factScope(w.umo),
            vector: w.umo.embedding.chunks[0]?.vector
          }
        ])
      )
      // Every pair once, earlier first: each write with its nearest, stored or in the batch.
      const pairs = new Map<string, { earlier: Judged; newer: Judged }>()
      const add = (a: Judged, b: Judged) => {
        // The same words again state nothing new: a repeat never outdates what it repeats.
        if (a.umo_id === b.umo_id || a.scope !== b.scope || sameWords(a.content, b.content)) return
        const [earlier, newer] = isNewer(b, a) ? [a, b] : [b, a]
        pairs.set(`${earlier.umo_id}>${newer.umo_id}`, { earlier, newer })
      }
      const batch = [...own.values()]
      const found = yield* Effect.forEach(asked, (w) => neighbours(accountId, w, batch), { concurrency: 4 })
      for (const [i, w] of asked.entries()) for (const n of found[i]!) add(own.get(w.umo.umo_id)!, n)
      const list = [...pairs.values()]
      const scores = yield* judging.score(
        list.map((p): JudgedPair => ({ earlier: p.earlier.content, newer: p.newer.content }))
      )
      const outdates = new Map<string, Array<string>>()
      const outdatedBy = new Map<string, Judged>()
      for (const [i, { earlier, newer }] of list.entries()) {
        if (scores[i]! < judging.threshold) continue
        if (own.has(newer.umo_id))
          outdates.set(newer.umo_id, [...(outdates.get(newer.umo_id) ?? []), earlier.umo_id])
        else {
          // A stored memory newer than the write outdates it: the newest such one.
          const before = outdatedBy.get(earlier.umo_id)
          if (before === undefined || isNewer(newer, before)) outdatedBy.set(earlier.umo_id, newer)
        }
      }
      return {
        warning: null,
        writes: writes.map((w) =>
          own.has(w.umo.umo_id)
            ? {
                ...w,
                judged: {
                  outdates: outdates.get(w.umo.umo_id) ?? [],
                  outdatedBy: outdatedBy.get(w.umo.umo_id)?.umo_id ?? null
                }
              }
            : w
        )
      }
    }).pipe(
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () =>
          Effect.succeed({
            writes,
            warning: `update judge ${judging.name} did not answer within ${timeoutMs} ms: no update was inferred; the memory is stored`
          })
      }),
      Effect.catch((error) =>
        Effect.succeed({
          writes,
          warning: `${error.message}: no update was inferred; the memory is stored`
        })
      ),
      Effect.withSpan("Capture.judge", { attributes: { writes: writes.length } })
    )

  return {
    /** Whether captures infer updates with a judge (else by the fact rules, in the store). */
    judging: judge !== undefined,
    decide: (accountId: string, writes: ReadonlyArray<CaptureWrite>): Effect.Effect<JudgedWrites> =>
      judge === undefined ? Effect.succeed({ writes, warning: null }) : decide(accountId, writes, judge)
  }
})
