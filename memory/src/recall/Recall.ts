import {
  anyMemory,
  canonicalJson,
  Embedder,
  FactFinder,
  MemorySearch,
  matchesFilter,
  type RecalledMemory,
  Reranker,
  type Selection,
  type StatedFact
} from "@umo/core"
import { Cache, Clock, Config, Duration, Effect, Exit, Option } from "effect"
import { storeFailure } from "../Errors.js"
import { timed } from "../StageTimings.js"
import * as Currency from "../updates/Currency.js"
import * as LaterRelated from "../updates/LaterRelated.js"
import { readQuestion, statesAsked } from "../updates/Succession.js"
import { baseScores, entityKey, entityOverlap, type Signals, weightsConfig, withContext } from "./Ranking.js"
import { RecordCache } from "./RecordCache.js"

export interface Hit {
  readonly memory: RecalledMemory
  /** The ranking score (see Ranking.ts): higher is more relevant; not bounded to [0, 1]. */
  readonly score: number
  /** Cosine similarity of the memory's best chunk to the query. */
  readonly similarity: number
  /** A newer memory replaced what it states: it was superseded, or a newer one scored gives a new value of its fact. */
  readonly outdated: boolean
  /** For a question about how things stand now, the search read it as the newest memory answering it (see `newestAnswerFirst`). */
  readonly current: boolean
  /** The facts its capture stored (see `Updates`), for the answer models. */
  readonly facts: ReadonlyArray<StatedFact>
  /** How many of the ranked memories hold this same text: one hit stands for them all (see `oncePerText`). */
  readonly timesSaid: number
  /** For the first results, the later memories of the same person linked to it (see `LaterRelated`). */
  readonly laterRelated: ReadonlyArray<LaterRelated.LaterRelated>
}

/** How many, and from which memories: candidates come only from the selection. */
export interface SearchOptions extends Selection {
  readonly limit: number
  /** Rerank the best candidates with the deployment's Reranker, if it has one (default `UMO_RERANK_SEARCH`). */
  readonly rerank?: boolean | undefined
}

/** Candidates a reranker reads: the first stage's best 20 (about 0.3 s for the cross-encoder on two cores). */
export const rerankDepth = 20

const round = (x: number) => Math.round(x * 1e6) / 1e6

/** Most matches a search counts (DESIGN.md: `total_count` is capped at 1,000). */
export const countLimit = 1_000

/** Query embeddings kept (least recently used go first): about 6 MB at 768 dimensions. */
const queryVectorsKept = 1_000

/**
 * Finds an account's memories for a query. Candidates come from the vector index (nearest
 * chunks) and from BM25 full text; with their neighbours in their sources' timelines they are
 * scored on every signal (missing ones computed exactly for those ids) and ranked by Ranking.
 */
export const make = Effect.gen(function* () {
  const index = yield* MemorySearch
  const embedder = yield* Embedder
  const finder = yield* FactFinder
  const weights = yield* weightsConfig
  const reranker = Option.getOrUndefined(yield* Effect.serviceOption(Reranker))
  const currency = yield* Currency.make
  const related = yield* LaterRelated.make
  // Off for searches by default: it costs more than the rest of a search; answers always use it.
  const rerankSearch = yield* Config.Boolean("UMO_RERANK_SEARCH").pipe(Config.withDefault(false))
  // Records returned lately, used again while this search's view holds them unchanged.
  const records = new RecordCache()
  // A question asked again (a retry, the next page, ask after search) skips the model. Failures
  // are not kept: the next call tries the model again.
  // Kept by model and question: after a re-embedding's switch the other model's vectors are stale.
  const queryVectors = yield* Cache.makeWith(
    (key: string) =>
      Effect.map(embedder.embed([key.slice(key.indexOf("\n") + 1)], { urgent: true }), ([vector]) => vector!),
    {
      capacity: queryVectorsKept,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    }
  )

  /**
   * What ranking reads of some candidates besides their vector similarity: their neighbours in
   * their sources' timelines (when context weighs), and for them and their neighbours the BM25 not
   * in `known.bm25` and the facts of those not in `known.read`. Returns the BM25 known after it.
   */
  const readAround = (
    accountId: string,
    query: string,
    found: ReadonlyArray<string>,
    selection: Selection,
    known: { readonly bm25: ReadonlyMap<string, number>; readonly read: ReadonlySet<string> }
  ) =>
    Effect.gen(function* () {
      const around =
        weights.context > 0 && found.length > 0 ? yield* index.neighbours(accountId, found, selection) : []
      const ids = [
        ...new Set([...found, ...around.flatMap((n) => [n.previous, n.next].filter((x) => x !== null))])
      ]
      const unscored = ids.filter((id) => !known.bm25.has(id))
      const unread = ids.filter((id) => !known.read.has(id))
      const [moreText, facts] = yield* Effect.all(
        [
          unscored.length === 0
            ? Effect.succeed([])
            : index.searchText(accountId, query, { limit: unscored.length, ids: unscored, ...selection }),
          unread.length === 0 ? Effect.succeed([]) : index.rankingFacts(accountId, unread)
        ],
        { concurrency: "unbounded" }
      )
      const bm25 = new Map(known.bm25)
      for (const c of moreText) bm25.set(c.umo_id, c.score)
      return { around, ids, bm25, facts }
    })

  const search = (accountId: string, query: string, options: SearchOptions) =>
    Effect.gen(function* () {
      const selection: Selection = { filter: options.filter, includeSuperseded: options.includeSuperseded }
      const pool = Math.max(50, options.limit * 4)
      const now = yield* Clock.currentTimeMillis
      // The index catches up with the store once, while the model embeds the query. Full text
      // needs no vector, so it runs then too, and so does what ranking reads of its candidates
      // (their neighbours, their facts, the neighbours' BM25), and the query itself is read
      // meanwhile (its entities, the facts it asks, when it asks about): after the embedding, only
      // what the vector search adds is left to read, then ranking.
      const synced = yield* Effect.cached(index.sync(accountId).pipe(timed("sync", (path) => path)))
      const [[vector, byVector], text, { queryEntities, reading }] = yield* Effect.all(
        [
          Effect.flatMap(
            Effect.all(
              [
                Cache.get(queryVectors, `${embedder.model.id}\n${query}`).pipe(Effect.orDie, timed("embed")),
                synced
              ],
              {
                concurrency: "unbounded"
              }
            ),
            ([vector]) =>
              Effect.map(
                index.searchVector(accountId, vector, { limit: pool, ...selection }).pipe(timed("vector")),
                (found) => [vector, found] as const
              )
          ),
          Effect.andThen(synced, index.searchText(accountId, query, { limit: pool, ...selection })).pipe(
            Effect.flatMap((byText) =>
              Effect.map(
                readAround(
                  accountId,
                  query,
                  byText.map((c) => c.umo_id),
                  selection,
                  {
                    bm25: new Map(byText.map((c) => [c.umo_id, c.score])),
                    read: new Set()
                  }
                ),
                (around) => ({ ...around, candidates: byText })
              )
            ),
            timed("text")
          ),
          Effect.sync(() => ({
            queryEntities: new Set(
              finder.names(query, new Date(now).toISOString()).map((e) => entityKey(e.text))
            ),
            reading: readQuestion(query, finder)
          })).pipe(timed("entities"))
        ],
        { concurrency: "unbounded" }
      )
      const { asked } = reading
      const byText = text.candidates
      const found = [...new Set([...byVector, ...byText].map((c) => c.umo_id))]
      if (found.length === 0) return { hits: [] as Array<Hit>, total: 0 }

      // What the vector search found besides full text, read the same way.
      const fromText = new Set(byText.map((c) => c.umo_id))
      const more = yield* readAround(
        accountId,
        query,
        byVector.map((c) => c.umo_id).filter((id) => !fromText.has(id)),
        selection,
        { bm25: text.bm25, read: new Set(text.ids) }
      ).pipe(timed("context"))
      const around = [...text.around, ...more.around]
      const ids = [...new Set([...text.ids, ...more.ids])]
      const similarity = new Map(byVector.map((c) => [c.umo_id, c.score]))
      const bm25 = more.bm25
      const unscored = ids.filter((id) => !similarity.has(id))
      const moreVector = yield* index
        .searchVector(accountId, vector, { limit: unscored.length, ids: unscored, ...selection })
        .pipe(timed("rescore"))
      const facts = [...text.facts, ...more.facts]
      const factsById = new Map(facts.map((m) => [m.umo_id, m]))
      for (const c of moreVector) similarity.set(c.umo_id, c.score)

      const signals = new Map<string, Signals>(
        facts.map((m) => [
          m.umo_id,
          {
            vector: similarity.get(m.umo_id) ?? 0,
            bm25: bm25.get(m.umo_id) ?? 0,
            entity: entityOverlap(queryEntities, m.entities),
            time: Date.parse(m.timestamp),
            fact: statesAsked(asked, m.facts) ? 1 : 0
          }
        ])
      )
      const scores = withContext(
        baseScores(signals, weights, now),
        new Map(around.map((n) => [n.umo_id, n])),
        weights.context
      )
      const reranking = reranker !== undefined && (options.rerank ?? rerankSearch)
      // Twice the limit: identical texts collapse into one hit, and the page should still be full.
      const depth = Math.max(options.limit * 2, reranking ? rerankDepth : 0)
      // Read only for what is returned (or reranked), and only what a search returns of each
      // (`recalled`: the index holds it), those read lately kept (see `RecordCache`); one deleted meanwhile is left
      // out, and so is one that left the selection meanwhile (superseded, say): the index chose
      // from the selection, and this holds it to it whatever index answered.
      const recordsOf = (ids: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const kept = records.current(accountId, ids, factsById)
          const missing = ids.filter((id) => !kept.has(id))
          const fetched = missing.length === 0 ? [] : yield* timed("read")(index.recalled(accountId, missing))
          records.keep(accountId, fetched)
          return new Map(
            [...kept.values(), ...fetched]
              .filter((m) => inSelection(m, selection, now))
              .map((m) => [m.umo_id, m])
          )
        })
      // The reranker reads each of the best candidates alone; what is current is ordered after it.
      const reranked = (best: ReadonlyArray<readonly [string, number]>) =>
        Effect.flatMap(recordsOf(best.map(([id]) => id)), (byId) =>
          rerank(
            reranker!,
            query,
            best.filter(([id]) => byId.has(id)),
            byId
          )
        )
      const candidates = reranking
        ? new Map(yield* reranked(Currency.byScore(scores).slice(0, depth)))
        : scores
      const {
        ranked,
        records: byId,
        outdated,
        current
      } = yield* currency.order({
        scores: candidates,
        facts,
        reading,
        similarity,
        depth,
        records: recordsOf
      })
      const top = oncePerText(ranked, byId).slice(0, options.limit)
      const statedBy = new Map(facts.map((m) => [m.umo_id, m.facts]))
      // Links are an aid to the reader: a search whose links cannot be read answers without them.
      const links = yield* related
        .linked(
          accountId,
          top.flatMap(({ id }) => byId.get(id) ?? []),
          options.filter
        )
        .pipe(
          timed("links"),
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning(`search answered without later related memories: ${error.message}`),
              new Map<string, ReadonlyArray<LaterRelated.LaterRelated>>()
            )
          )
        )
      const hits = top.flatMap(({ id, score, timesSaid }): Array<Hit> => {
        const memory = byId.get(id)
        return memory
          ? [
              {
                memory,
                score: round(score),
                similarity: round(Math.max(0, similarity.get(id) ?? 0)),
                outdated: outdated.has(id),
                current: current === id,
                facts: statedBy.get(id) ?? [],
                timesSaid,
                laterRelated: links.get(id) ?? []
              }
            ]
          : []
      })
      // `total` counts every memory scored for this query (up to `countLimit`), for total_count and has_more.
      return { hits, total: Math.min(scores.size, countLimit) }
    }).pipe(Effect.catch(storeFailure))
  return { search }
})

/**
 * One entry per text, at the rank of its best memory and with its score: the memory standing for
 * the text is its newest (the latest time it was said), and `timesSaid` counts them. A search or an
 * ask never shows one sentence twice, whatever scopes, sources or times said it — unless their
 * metadata differ: records the caller told apart (a store's items under different keys, with equal
 * values) stay apart.
 */
const oncePerText = (
  ranked: ReadonlyArray<readonly [string, number]>,
  byId: ReadonlyMap<string, RecalledMemory>
) => {
  const texts = new Map<string, { id: string; score: number; timesSaid: number }>()
  for (const [id, score] of ranked) {
    const memory = byId.get(id)
    if (memory === undefined) continue
    const key = `${memory.content}\u0000${canonicalJson(memory.metadata)}`
    const seen = texts.get(key)
    if (seen === undefined) texts.set(key, { id, score, timesSaid: 1 })
    else {
      seen.timesSaid += 1
      const shown = byId.get(seen.id)!
      if (Date.parse(memory.timestamp) > Date.parse(shown.timestamp)) seen.id = id
    }
  }
  return [...texts.values()]
}

/**
 * Whether a memory is in a selection: the filter admits it, it is current unless superseded ones
 * are asked for, and unexpired at `now` (the index may still hold one the sweeper has not reached).
 */
const inSelection = (memory: RecalledMemory, selection: Selection, now: number) =>
  (selection.includeSuperseded === true || memory.superseded_by === null) &&
  (selection.includeExpired === true || memory.expires_at === null || Date.parse(memory.expires_at) > now) &&
  matchesFilter(memory, selection.filter ?? anyMemory)

/**
 * The candidates in the order of their first-stage rank fused with the reranker's (reciprocal-rank
 * fusion, k = 60): the reranker reads query and memory together and puts the answering turn
 * first far more often (LoCoMo R@1 +11 points), while the first stage keeps what the reranker
 * underrates. The score becomes the fused one. A reranker that fails leaves the first-stage order.
 */
const rerank = (
  reranker: Reranker["Service"],
  query: string,
  candidates: ReadonlyArray<readonly [string, number]>,
  byId: ReadonlyMap<string, RecalledMemory>
) =>
  reranker
    .score(
      query,
      candidates.map(([id]) => byId.get(id)!.content)
    )
    .pipe(
      timed("rerank"),
      Effect.map((scores) => {
        const order = candidates.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b)
        const rerankedAt = new Map(order.map((i, rank) => [i, rank]))
        return Currency.byScore(
          new Map(candidates.map(([id], i) => [id, 1 / (61 + i) + 1 / (61 + rerankedAt.get(i)!)] as const))
        )
      }),
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`search kept its first-stage order: ${error.detail}`), candidates)
      )
    )

/** Recall, made: `search`. */
export type Recall = Effect.Success<typeof make>
