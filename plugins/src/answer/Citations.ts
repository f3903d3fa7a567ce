import { type AnswerContext, type Citation, clipText } from "@umo/core"

/** The citation of one retrieved memory: its summary as title (≤ 80 characters) and the given snippet. */
export const citationOf = (context: AnswerContext, snippet: string): Citation => ({
  index: context.index,
  umo_id: context.umo_id,
  title: clipText(context.summary, 80),
  snippet,
  similarity: Math.round(context.similarity * 1e4) / 1e4
})
