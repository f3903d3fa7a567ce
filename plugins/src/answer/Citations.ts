import { type Answer, type AnswerContext, type AnswerRequest, type Citation, clipText } from "@umo/core"
import { questionType } from "./QuestionType.js"

/** The citation of one retrieved memory: its summary as title (≤ 80 characters) and the given snippet. */
export const citationOf = (context: AnswerContext, snippet: string): Citation => ({
  index: context.index,
  umo_id: context.umo_id,
  title: clipText(context.summary, 80),
  snippet,
  similarity: Math.round(context.similarity * 1e4) / 1e4
})

/**
 * How long a memory may be to be quoted whole where a sentence of it answers: a short memory says
 * its answer across its sentences ("Finished Pachinko. Sorry Saramago — new favourite book"), and
 * whole it is no longer than a long sentence.
 */
const quotedWholeUpTo = 200

/** What an answer quotes of the memory a sentence of it answers from: the memory when short, else the sentence. */
export const quotedOf = (context: AnswerContext, sentence: string): string => {
  const whole = context.content.trim()
  return whole.length <= quotedWholeUpTo ? whole : sentence.trim()
}

export interface CheckedAnswer {
  readonly answer: string
  readonly citations: ReadonlyArray<Citation>
  /** The mean similarity of the cited memories; 0 when nothing is cited. */
  readonly confidence: number
}

/**
 * A language model's answer with its `[n]` markers checked against the memories it was given:
 * each marker that names a retrieved memory becomes a citation; one that points at no memory (a
 * model's invention) is removed rather than passed on.
 */
export const checkCitations = (text: string, contexts: ReadonlyArray<AnswerContext>): CheckedAnswer => {
  const cited = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))
  const citations = contexts
    .filter((c) => cited.has(c.index))
    .map((c) => citationOf(c, clipText(c.content, 240)))
  const checked = text.replace(/\[(\d+)\]/g, (marker, n) =>
    citations.some((c) => c.index === Number(n)) ? marker : ""
  )
  const confidence =
    citations.length === 0
      ? 0
      : citations.reduce((s, c) => s + Math.max(0, c.similarity), 0) / citations.length
  return {
    answer: checked
      .replace(/[ \t]+([.,;:!?])/g, "$1")
      .replace(/\s{2,}/g, " ")
      .trim(),
    citations,
    confidence: Math.round(confidence * 1e4) / 1e4
  }
}

/** The answer when no memory was retrieved: the model is not asked to answer from nothing. */
export const nothingToGoOn = (question: string): Answer => ({
  answer: "I could not find anything about that in your memories.",
  citations: [],
  confidence: 0,
  method: "no_context",
  question_type: questionType(question)
})

/** A language model's answer text as the answer to `request`: its citations checked (see `checkCitations`). */
export const generatedAnswer = (text: string, request: AnswerRequest): Answer => ({
  ...checkCitations(text, request.contexts),
  method: "generative",
  question_type: questionType(request.question)
})
