/** Retrieval and answer metrics of the LoCoMo paper, macro-averaged over questions. */

export const ks = [1, 5, 10, 25] as const

export interface RetrievalScores {
  readonly questions: number
  /** Mean recall@k in percent: |evidence ∩ top k| / |evidence|. */
  readonly recall: Record<(typeof ks)[number], number>
  /** Share of questions with any evidence in the top k, in percent. */
  readonly hit: Record<(typeof ks)[number], number>
  /** Mean reciprocal rank of the first evidence turn within the top 50. */
  readonly mrr: number
}

export interface RankedQuestion {
  readonly category: number
  readonly evidence: ReadonlyArray<string>
  /** Retrieved dia_ids, best first. */
  readonly ranked: ReadonlyArray<string>
}

const percent = (x: number) => Math.round(x * 1000) / 10

export const retrieval = (rows: ReadonlyArray<RankedQuestion>): RetrievalScores => {
  const recall = { 1: 0, 5: 0, 10: 0, 25: 0 }
  const hit = { 1: 0, 5: 0, 10: 0, 25: 0 }
  let mrr = 0
  for (const row of rows) {
    const evidence = new Set(row.evidence)
    for (const k of ks) {
      const found = row.ranked.slice(0, k).filter((id) => evidence.has(id)).length
      recall[k] += found / evidence.size
      hit[k] += found > 0 ? 1 : 0
    }
    const first = row.ranked.slice(0, 50).findIndex((id) => evidence.has(id))
    mrr += first < 0 ? 0 : 1 / (first + 1)
  }
  const n = Math.max(1, rows.length)
  return {
    questions: rows.length,
    recall: {
      1: percent(recall[1] / n),
      5: percent(recall[5] / n),
      10: percent(recall[10] / n),
      25: percent(recall[25] / n)
    },
    hit: {
      1: percent(hit[1] / n),
      5: percent(hit[5] / n),
      10: percent(hit[10] / n),
      25: percent(hit[25] / n)
    },
    mrr: Math.round((mrr / n) * 1000) / 1000
  }
}

/** All questions and each category. */
export type ByCategory = Record<"all" | "1" | "2" | "3" | "4" | "5", RetrievalScores>

export const byCategory = (rows: ReadonlyArray<RankedQuestion>): ByCategory => {
  const of = (c: number) => retrieval(rows.filter((r) => r.category === c))
  return { all: retrieval(rows), 1: of(1), 2: of(2), 3: of(3), 4: of(4), 5: of(5) }
}

/** LoCoMo's answer normalisation: lower case, no punctuation, no articles, single spaces. */
export const normalizeAnswer = (text: string) =>
  text
    .toLowerCase()
    .replace(/\[\d+\]/g, " ")
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .replace(/\b(a|an|the|and)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/** Token F1 between a gold answer and a prediction (after normalisation; no stemming). */
export const tokenF1 = (gold: string, prediction: string) => {
  const g = normalizeAnswer(gold).split(" ").filter(Boolean)
  const p = normalizeAnswer(prediction).split(" ").filter(Boolean)
  if (g.length === 0 || p.length === 0) return 0
  const counts = new Map<string, number>()
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1)
  let common = 0
  for (const t of p) {
    const left = counts.get(t) ?? 0
    if (left > 0) {
      common++
      counts.set(t, left - 1)
    }
  }
  if (common === 0) return 0
  const precision = common / p.length
  const recall = common / g.length
  return (2 * precision * recall) / (precision + recall)
}

/** Whether the normalised prediction contains the normalised gold answer. */
export const containsGold = (gold: string, prediction: string) => {
  const g = normalizeAnswer(gold)
  return g !== "" && ` ${normalizeAnswer(prediction)} `.includes(` ${g} `)
}
