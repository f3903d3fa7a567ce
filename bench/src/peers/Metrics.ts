/**
 * The retrieval figures of the comparison, per LoCoMo category: the turn-level ones of
 * bench:recall (recall@k, MRR; Metrics.ts) and two session-level ones — hit@10 (any of the top 10
 * memories from an evidence session, the metric other memory layers publish) and Engram's own
 * R@5 (any evidence session among the first five distinct sessions of the top 10 memories, as its
 * benchmarks/locomo_bench.py scores), so its published figure has a same-metric row here.
 */
import { byCategory, type RankedQuestion, type RetrievalScores } from "../recall/Metrics.js"

/** `D3:12` → `D3`. */
export const sessionOf = (diaId: string) => diaId.split(":")[0] ?? diaId

const percent = (x: number) => Math.round(x * 1000) / 10

/** Share of questions with a memory of an evidence session in the top `k`, in percent. */
export const sessionHit = (rows: ReadonlyArray<RankedQuestion>, k = 10) =>
  percent(
    rows.filter((r) => {
      const sessions = new Set(r.evidence.map(sessionOf))
      return r.ranked.slice(0, k).some((id) => sessions.has(sessionOf(id)))
    }).length / Math.max(1, rows.length)
  )

/** Engram's LoCoMo R@k: the first `k` distinct sessions among the top `2k` memories. */
export const engramSessionRecall = (rows: ReadonlyArray<RankedQuestion>, k = 5) =>
  percent(
    rows.filter((r) => {
      const sessions = new Set(r.evidence.map(sessionOf))
      const distinct = [...new Set(r.ranked.slice(0, 2 * k).map(sessionOf))].slice(0, k)
      return distinct.some((s) => sessions.has(s))
    }).length / Math.max(1, rows.length)
  )

export interface PeerScores extends RetrievalScores {
  readonly session_hit_10: number
  readonly engram_session_r5: number
}

export type PeerByCategory = Record<"all" | "1" | "2" | "3" | "4" | "5", PeerScores>

export const peerScores = (rows: ReadonlyArray<RankedQuestion>): PeerByCategory => {
  const turn = byCategory(rows)
  const of = (key: keyof PeerByCategory, subset: ReadonlyArray<RankedQuestion>): PeerScores => ({
    ...turn[key],
    session_hit_10: sessionHit(subset, 10),
    engram_session_r5: engramSessionRecall(subset, 5)
  })
  const category = (c: number) => rows.filter((r) => r.category === c)
  return {
    all: of("all", rows),
    1: of("1", category(1)),
    2: of("2", category(2)),
    3: of("3", category(3)),
    4: of("4", category(4)),
    5: of("5", category(5))
  }
}
