import { Config, Schema } from "effect"

/**
 * How search ranks memories. Each memory gets a base score from four signals, each in [0, 1]:
 *
 * - `vector`: cosine similarity of its best chunk to the query (negative counts as 0);
 * - `text`: its BM25 score divided by the best BM25 score among the candidates;
 * - `entity`: the share of the query's entities (people, places, …) the memory also names;
 * - `recency`: `0.5 ^ (age / recencyHalfLifeDays)`, age from the memory's `timestamp`;
 * - `fact`: 1 when the memory states a fact of the kind the query asks about (where someone lives,
 *   their employer, a favourite, …) about the person it asks about, else 0 (see `statesAsked`).
 *
 * and `base = Σ weight × signal`. Then `context` adds the better base score of the memories just
 * before and after it in its source's timeline: a reply is found through the question it answers
 * and the other way round. `score = base + context × max(base(previous), base(next))`.
 */
export interface RankingWeights {
  readonly vector: number
  readonly text: number
  readonly entity: number
  readonly recency: number
  readonly context: number
  readonly fact: number
  readonly recencyHalfLifeDays: number
}

/** Chosen on the LoCoMo turns (bench/README.md) and the same for every query and account. */
export const defaultWeights: RankingWeights = {
  vector: 1,
  text: 0.5,
  entity: 0.05,
  recency: 0.05,
  context: 0.4,
  fact: 0.8,
  recencyHalfLifeDays: 365
}

export interface Signals {
  readonly vector: number
  /** Raw BM25 (0 when no query term matched). */
  readonly bm25: number
  readonly entity: number
  /** The memory's `timestamp`, ms since the epoch. */
  readonly time: number
  /** 1 when it states a fact of the kind asked about, else 0. */
  readonly fact: number
}

const dayMs = 86_400_000

/** Base scores for a candidate set; BM25 is divided by the set's best. */
export const baseScores = (
  signals: ReadonlyMap<string, Signals>,
  weights: RankingWeights,
  now: number
): Map<string, number> => {
  const bestBm25 = Math.max(0, ...[...signals.values()].map((s) => s.bm25))
  const scores = new Map<string, number>()
  for (const [id, s] of signals) {
    const age = Math.max(0, now - s.time) / dayMs
    scores.set(
      id,
      weights.vector * Math.max(0, s.vector) +
        weights.text * (bestBm25 > 0 ? s.bm25 / bestBm25 : 0) +
        weights.entity * s.entity +
        weights.recency * 0.5 ** (age / weights.recencyHalfLifeDays) +
        weights.fact * s.fact
    )
  }
  return scores
}

/** Adds the context signal: the better base score of each memory's two neighbours. */
export const withContext = (
  base: ReadonlyMap<string, number>,
  neighbours: ReadonlyMap<string, { readonly previous: string | null; readonly next: string | null }>,
  weight: number
): Map<string, number> => {
  const scored = new Map<string, number>()
  for (const [id, score] of base) {
    const around = neighbours.get(id)
    const near = [around?.previous, around?.next].map((n) => (n ? (base.get(n) ?? 0) : 0))
    scored.set(id, score + weight * Math.max(0, ...near))
  }
  return scored
}

/** Normalised entity texts: lower case, without a possessive `'s`. */
export const entityKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/['’]s$/, "")
    .trim()

/**
 * The share of the query's entities that the memory names too. A search scores a few hundred
 * candidates: their names are looked up in the query's, with no set made for each.
 */
export const entityOverlap = (
  query: ReadonlySet<string>,
  memory: ReadonlyArray<{ readonly text: string }>
) => {
  if (query.size === 0) return 0
  const shared: Array<string> = []
  for (const e of memory) {
    const key = entityKey(e.text)
    if (query.has(key) && !shared.includes(key)) shared.push(key)
  }
  return shared.length / query.size
}

const NonNegative = Schema.FiniteFromString.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))

const weight = (name: string, fallback: number) =>
  Config.schema(NonNegative, name).pipe(Config.withDefault(fallback))

/** `UMO_RANK_VECTOR`, `_TEXT`, `_ENTITY`, `_RECENCY`, `_CONTEXT`, `_FACT`, `UMO_RANK_RECENCY_HALF_LIFE_DAYS`. */
export const weightsConfig = Config.all({
  vector: weight("UMO_RANK_VECTOR", defaultWeights.vector),
  text: weight("UMO_RANK_TEXT", defaultWeights.text),
  entity: weight("UMO_RANK_ENTITY", defaultWeights.entity),
  recency: weight("UMO_RANK_RECENCY", defaultWeights.recency),
  context: weight("UMO_RANK_CONTEXT", defaultWeights.context),
  fact: weight("UMO_RANK_FACT", defaultWeights.fact),
  recencyHalfLifeDays: weight("UMO_RANK_RECENCY_HALF_LIFE_DAYS", defaultWeights.recencyHalfLifeDays)
})
