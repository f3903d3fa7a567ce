import { Schema } from "effect"
import type { Draft } from "./Draft.js"

/** One reason a quality score is what it is; `value` in [0, 1], `weight` its share of the score. */
export const QualityFactor = Schema.Struct({
  name: Schema.Literals(["substance", "entities", "relations", "topics", "clean_text", "summary"]),
  weight: Schema.Number,
  value: Schema.Number,
  note: Schema.String
})
export type QualityFactor = typeof QualityFactor.Type

export interface Quality {
  /** Weighted mean of the factors, in [0, 1], rounded to 4 decimals. */
  readonly score: number
  readonly factors: ReadonlyArray<QualityFactor>
}

const saturate = (value: number, at: number): number => Math.min(1, Math.max(0, value / at))
const wordPattern = /\p{L}[\p{L}\p{M}'’-]*/gu

/**
 * How much the pipeline could make of a text: a rich paragraph with named things, relationships
 * and topics scores high; a two-word remark or noise scores low. It reads only what the earlier
 * stages put on the draft, so it is deterministic and explainable factor by factor.
 */
export const qualityOf = (draft: Draft): Quality => {
  const tokens = draft.content.split(/\s+/).filter((token) => token.length > 0)
  const words = draft.content.match(wordPattern) ?? []
  const wordLike = tokens.filter((token) => /\p{L}/u.test(token)).length
  const distinctEntities = new Set(draft.entities.map((e) => `${e.type}:${e.text.toLowerCase()}`)).size
  const summaryLength = draft.summary?.length ?? 0

  const factors: ReadonlyArray<QualityFactor> = [
    {
      name: "substance",
      weight: 0.25,
      value: saturate(Math.log1p(words.length), Math.log1p(60)),
      note: `${words.length} words`
    },
    {
      name: "entities",
      weight: 0.2,
      value: saturate(distinctEntities, 4),
      note: `${distinctEntities} distinct entities`
    },
    {
      name: "relations",
      weight: 0.2,
      value: saturate(draft.svo_triples.length, 3),
      note: `${draft.svo_triples.length} subject-verb-object triples`
    },
    {
      name: "topics",
      weight: 0.15,
      value: saturate(draft.topics.length, 3),
      note: `${draft.topics.length} topics`
    },
    {
      name: "clean_text",
      weight: 0.1,
      value: tokens.length === 0 ? 0 : wordLike / tokens.length,
      note: `${wordLike} of ${tokens.length} tokens are words`
    },
    {
      name: "summary",
      weight: 0.1,
      value: summaryLength === 0 ? 0 : saturate(summaryLength, 40),
      note: summaryLength === 0 ? "no summary" : `summary of ${summaryLength} characters`
    }
  ]
  const score = factors.reduce((sum, f) => sum + f.weight * f.value, 0)
  return { score: Math.round(Math.min(1, Math.max(0, score)) * 10_000) / 10_000, factors }
}
