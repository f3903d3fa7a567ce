import type { AnswerContext, Citation } from "@umo/core"

/** Shortens text to at most `max` characters, marking the cut with an ellipsis. */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** The citation of one retrieved memory: its summary as title (≤ 80 characters) and the given snippet. */
export const citationOf = (context: AnswerContext, snippet: string): Citation => ({
  index: context.index,
  umo_id: context.umo_id,
  title: clip(context.summary, 80),
  snippet,
  similarity: Math.round(context.similarity * 1e4) / 1e4
})
