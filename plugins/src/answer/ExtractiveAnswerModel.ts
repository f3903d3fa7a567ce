import type {
  Answer,
  AnswerContext,
  AnswerModelShape,
  AnswerRequest,
  Citation,
  Entity,
  QuestionType
} from "@umo/core"
import { Effect } from "effect"
import { compromise } from "../nlp/Engines.js"
import { findEntities } from "../nlp/Entities.js"
import { splitSentences } from "../nlp/Normalize.js"
import { citationOf } from "./Citations.js"
import { questionType, wantedEntityTypes } from "./QuestionType.js"

export const extractiveModelId = "umo-extractive"

const stopwords = new Set(
  "a an and are as at be been but by did do does for from had has have he her his how i if in into is it its me my of on or our she so than that the their them there they this to was we were what when where which who whom why will with would you your".split(
    " "
  )
)
const words = (text: string) =>
  (text.toLowerCase().match(/\p{L}[\p{L}\p{N}'’-]*|\p{N}+/gu) ?? [])
    .map((w) => w.replace(/(?:'s|’s|ing|ed|es|s)$/u, ""))
    .filter((w) => w.length > 1 && !stopwords.has(w))

interface Candidate {
  readonly context: AnswerContext
  readonly text: string
  /** The sentence's entities; found only when the question asks for a kind of entity. */
  readonly entities: ReadonlyArray<Entity>
  readonly score: number
}

const relativeDate =
  /\b(yesterday|today|tonight|tomorrow|last (?:week|month|year|night|weekend|summer|winter|spring|fall|autumn)|this (?:week|month|year|morning|weekend)|next (?:week|month|year)|\d+ (?:days|weeks|months|years) ago)\b/i

const months = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]

/** "2023-05-07…" → "7 May 2023". */
const readableDate = (iso: string) =>
  `${Number(iso.slice(8, 10))} ${months[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`

/** "yesterday" in a memory written on 8 May 2023 is 7 May 2023: resolve it against the memory's time. */
const resolveRelativeDate = (sentence: string, timestamp: string): string | undefined => {
  if (!relativeDate.test(sentence)) return undefined
  const doc = compromise(sentence) as unknown as {
    dates: (o: object) => { json: () => Array<{ text: string; dates?: { start?: string } }> }
  }
  const found = doc.dates({ today: timestamp.slice(0, 10) }).json()
  const start = found.find((d) => relativeDate.test(d.text) && d.dates?.start)?.dates?.start
  return start ? readableDate(start) : undefined
}

/**
 * The short answer a sentence gives to a question of this type: for "when", the date it names
 * (relative dates resolved) or else the day the memory was written; for "where", "who" and "how
 * many", the first entity of the wanted kind that the question does not already name.
 */
const shortAnswer = (type: QuestionType, candidate: Candidate, question: string): string | undefined => {
  const { text, context, entities } = candidate
  if (type === "temporal") {
    const relative = resolveRelativeDate(text, context.timestamp)
    if (relative) return relative
    const date = entities.find((e) => e.type === "DATE" || e.type === "TIME")
    return date ? date.text : readableDate(context.timestamp)
  }
  const wanted = wantedEntityTypes[type]
  const asked = question.toLowerCase()
  return entities.find((e) => wanted.includes(e.type) && !asked.includes(e.text.toLowerCase()))?.text
}

/**
 * The default local answer model: no LLM, it quotes your memories. It reads the question's type,
 * scores every sentence of the retrieved memories by the question words it shares (weighted by
 * how close its memory is) and by whether it holds the kind of entity asked for (a LOCATION for
 * "where", a DATE for "when"), and answers with the best sentences, each marked `[n]` for its
 * memory, led by the short answer when the question asks for a date, place, person or number
 * (relative dates resolved against the memory's own time).
 */
export const answer = (request: AnswerRequest): Answer => {
  const type = questionType(request.question)
  const asked = new Set(words(request.question))
  const wanted = wantedEntityTypes[type]
  const candidates: Array<Candidate> = request.contexts.flatMap((context) =>
    splitSentences(context.content).map((s) => {
      const text = context.content.slice(s.start, s.end)
      const shared = words(text).filter((w) => asked.has(w)).length
      const overlap = asked.size === 0 ? 0 : shared / asked.size
      // A "where" answer must name a place, a "when" answer a date: without one a sentence can
      // only be a weak answer, however many question words it repeats.
      const entities = wanted.length === 0 ? [] : findEntities(text, context.timestamp)
      const fit =
        wanted.length === 0
          ? overlap
          : entities.some((e) => wanted.includes(e.type))
            ? overlap + 0.3
            : overlap * 0.4
      return { context, text, entities, score: fit * (0.5 + 0.5 * Math.max(0, context.similarity)) }
    })
  )
  const ranked = candidates.filter((c) => c.score > 0).sort((a, b) => b.score - a.score)
  if (ranked.length === 0) {
    return {
      answer: "I could not find anything about that in your memories.",
      citations: [],
      confidence: 0,
      method: "no_context",
      question_type: type
    }
  }
  const chosen = ranked.slice(0, type === "list" || type === "open" ? 3 : 1)
  const citations = new Map<number, Citation>()
  for (const c of chosen) {
    if (!citations.has(c.context.index)) {
      citations.set(c.context.index, citationOf(c.context, c.text))
    }
  }
  // The short answer first when the question asks for one, then the sentence it comes from.
  const lead = shortAnswer(type, chosen[0]!, request.question)
  const quoted = chosen.map((c) => `${c.text.replace(/\s*$/, "")} [${c.context.index}]`).join(" ")
  const body = lead === undefined ? quoted : `${lead}: ${quoted}`
  return {
    answer: body,
    citations: [...citations.values()].sort((a, b) => a.index - b.index),
    confidence: Math.round(Math.min(1, chosen[0]!.score) * 1e4) / 1e4,
    method: "extractive",
    question_type: type
  }
}

/** The extractive answerer as an answer model: local, the default when no LLM is configured. */
export const extractive: AnswerModelShape = {
  id: extractiveModelId,
  kind: "local",
  answer: (request) =>
    Effect.sync(() => answer(request)).pipe(Effect.withSpan(`AnswerModel.${extractiveModelId}`))
}
