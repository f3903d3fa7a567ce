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
import { othersNewsUnasked } from "../nlp/Asides.js"
import { findEntities } from "../nlp/Entities.js"
import { statedFacts } from "../nlp/Facts.js"
import { isNameWord } from "../nlp/FactValues.js"
import { splitSentences } from "../nlp/Normalize.js"
import { answerSpans, contentWords, type Span, yesOrNo } from "./AnswerSpans.js"
import { placeOfAskedKind } from "./AskedPlace.js"
import { citationOf, nothingToGoOn, quotedOf } from "./Citations.js"
import { factAnswer } from "./FactAnswer.js"
import { asksAboutThePast, nowWords, questionType, stillWords, wantedEntityTypes } from "./QuestionType.js"
import { readableDay, resolveRelativeTime } from "./RelativeDates.js"

export const extractiveModelId = "umo-extractive"

interface Candidate {
  readonly context: AnswerContext
  readonly text: string
  /** The sentence's entities; found only when the question asks for a kind of entity. */
  readonly entities: ReadonlyArray<Entity>
  /** What the sentence adds to the question, best first; none where the answer is not a span of it. */
  readonly spans: ReadonlyArray<Span>
  readonly score: number
}

/**
 * For a "who" or "where" question, the first name the sentence writes (capitalized, past its first
 * word, not a day, month or pronoun) that the question does not already name, with the capitalized
 * words that follow it: "Leeds", "San Diego State".
 */
const nameIn = (type: QuestionType, text: string, asked: string): string | undefined => {
  if (type !== "person" && type !== "location") return undefined
  const words = text.split(/\s+/)
  const names: Array<{ readonly name: string; readonly placed: boolean }> = []
  for (let i = 1; i < words.length; i++) {
    // A sentence's first word is capitalized whatever it is.
    if (/[.!?]$/.test(words[i - 1]!)) continue
    const run: Array<string> = []
    for (const raw of words.slice(i)) {
      const opened = raw.replace(/^[("'“]+/, "")
      const word = opened.replace(/[.,;:!?)"'”]+$/, "").replace(/['’]s$/, "")
      if (!isNameWord(word)) break
      run.push(word)
      // Punctuation or a possessive ends the name.
      if (word !== opened) break
    }
    if (run.length > 0 && !asked.includes(run[0]!.toLowerCase()))
      names.push({
        name: run.join(" "),
        placed: /^(?:in|to|from|at|near|into|around|outside)$/i.test(words[i - 1]!)
      })
  }
  // "Where…?" over "My cousin Abdi is moving from Minneapolis": the name a place word leads to.
  return (type === "location" ? names.find((n) => n.placed) : undefined)?.name ?? names[0]?.name
}

/**
 * A count the sentence writes before what it counts ("Two kids under 4", "3 marathons"), not a
 * year or a length of time: what "how many" asks for.
 */
const countIn = (text: string): string | undefined =>
  /\b(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen)\s+(?!(?:years?|months?|weeks?|days?|hours?|minutes?|times?|am|pm|of)\b)[\p{L}-]{3,}/iu.exec(
    text
  )?.[0]

/**
 * The confidence under which a run of words is a guess, and the whole sentence is said instead
 * ("put" was the answer to "What happened to Bran?" from "We had to put Bran to sleep this
 * morning"). With it, and yes or no said with its sentence: LoCoMo (bench:recall, mpnet, every 4th
 * question) answers holding the gold answer 20.5 → 23.2 %, token F1 24.8 → 23.6 (a sentence is
 * longer than the gold); bench:updates (dev, test, blind) the current value 68.5 → 72.3 %, the
 * earlier one 63.3 → 69.6 %.
 */
const guessBelow = 0.3

/**
 * A sentence's answer to a question: `text` is what is said, `sureness` how sure its kind is, and
 * `quoted` where the sentence itself goes: `after` a yes or no ("No — Diego and I broke up"), or
 * `instead` of a run of words the sentence adds to the question when that run is a guess at where
 * the answer starts and ends (see `guessBelow`).
 */
interface ShortAnswer {
  readonly text: string
  readonly sureness: number
  readonly quoted?: "after" | "instead"
}

/** A word by which the writer speaks of themselves. */
const firstPerson =
  /\b(?:I|I'm|I’m|I've|I’ve|I'd|I’d|I'll|I’ll|me|my|mine|myself|we|we're|we’re|our|ours|us)\b/i

/** Question types whose answer is never a run of the sentence's words (see `shortAnswer`). */
const answeredWhole: ReadonlySet<QuestionType> = new Set(["open", "yes_no", "temporal"])

const titleAsked =
  /\b(?:book|song|movie|film|show|series|album|piece|poem|play|title|name|called|named|say|said|sign|quote|motto)s?\b/i

/**
 * The short answer a sentence gives to a question of this type: for "when", the time it names
 * (relative times resolved against the memory's own) or else the day the memory was written; for
 * "where", "who" and "how many", the first entity of the wanted kind that the question does not
 * already name; "Yes" or "No"; otherwise the run of words the sentence adds to the question. With
 * how sure it is: an entity of the kind asked for is surer than a run of words.
 */
const shortAnswer = (type: QuestionType, candidate: Candidate, question: string): ShortAnswer | undefined => {
  const { text, context, entities, spans } = candidate
  if (type === "open") return undefined
  if (type === "yes_no") return { text: yesOrNo(text, question), sureness: 0.8, quoted: "after" }
  if (type === "temporal") {
    const relative = resolveRelativeTime(text, context.timestamp)
    if (relative) return { text: relative, sureness: 1 }
    const date = entities.find((e) => e.type === "DATE" || e.type === "TIME")
    if (date === undefined) return { text: readableDay(new Date(context.timestamp)), sureness: 0.6 }
    // "17 May 2025", where the tagger found "17 May" and the year apart. (A date whose text the
    // tagger gave otherwise than the sentence has it is not looked past.)
    const at = text.indexOf(date.text)
    const after = at < 0 ? "" : text.slice(at + date.text.length)
    const year = /\d{4}/.test(date.text) ? undefined : /^,?\s+(\d{4})\b/.exec(after)?.[1]
    return { text: year === undefined ? date.text : `${date.text} ${year}`, sureness: 1 }
  }
  // A title asked for is, when the sentence quotes one, the quote: "Becoming Nicole".
  const quoted = titleAsked.test(question) ? text.match(/["“]([^"”]{2,80})["”]/)?.[1] : undefined
  if (quoted) return { text: quoted, sureness: 0.9 }
  const wanted = wantedEntityTypes[type]
  // A value the sentence says ended ("Resigned from Trendyol. Going remote with Pliant") is no
  // answer about now; for one about the past it may be.
  const ended = asksAboutThePast(question)
    ? []
    : statedFacts(text).flatMap((f) => (f.mode === "end" && f.value !== "*" ? [f.value] : []))
  const asked = [question.toLowerCase(), ...ended].join(" ")
  const isEnded = (name: string) => ended.some((value) => name.toLowerCase().includes(value))
  const entity = entities.find(
    (e) => wanted.includes(e.type) && !asked.includes(e.text.toLowerCase()) && !isEnded(e.text)
  )
  const span = spans[0]
  // "Who is Lily?" asks what Lily is to someone, not for another name.
  if (span?.names && type === "person") return { text: span.text, sureness: 0.9 }
  // "since 2019" is no count of children: a count before its noun is, when the entity is a year or a length.
  const count = type === "quantity" ? countIn(text) : undefined
  if (count && (!entity || entity.type === "DURATION" || /^\d{4}$/.test(entity.text)))
    return { text: count, sureness: 0.9 }
  // "Which city…?" of a sentence naming a neighbourhood and its city: the city (see `AskedPlace`).
  const ofKind = (place: string) =>
    (type === "location" ? placeOfAskedKind(question, text, place) : undefined) ?? place
  if (entity) return { text: ofKind(entity.text), sureness: 1 }
  // A name no tagger knows ("Shopify", "Leeds") answers "who" and "where" too.
  const name = nameIn(type, text, asked)
  if (name) return { text: ofKind(name), sureness: 0.8 }
  return span ? { text: span.text, sureness: wanted.length > 0 ? 0.5 : 0.8, quoted: "instead" } : undefined
}

/**
 * The default local answer model: no LLM, it quotes your memories. It reads the question's type
 * and scores every sentence of the retrieved memories by the question words it shares (each
 * weighted by its rarity among the memories; names in the question weigh little), by how close
 * its memory is, and by whether it holds the kind of entity asked for (a LOCATION for "where", a
 * DATE for "when"), by whether a newer memory replaced it (see `AnswerContext.outdated`), and by
 * its memory's place in the search's order.
 * It answers with the short span of the best sentence, marked `[n]` for its memory, the sentence
 * itself in the citation: a date (relative times resolved against the memory's own), a place, a
 * name, a number, a quoted title, or the words the sentence adds to the question — the whole
 * sentence when that run of words is a guess (see `guessBelow`); yes or no followed by the
 * sentence that says so; the sentences of the two best memories for a list; whole sentences for
 * an open question. `confidence` is the sentence's score times how sure the kind of span is.
 */
export const answer = (request: AnswerRequest): Answer => {
  const type = questionType(request.question)
  // A question for a fact the memories state is answered with its value (see `FactAnswer`).
  const stated = factAnswer(request, type)
  if (stated !== undefined) return stated
  // What a newer memory replaced answers a question about the past, and is stale for one about now.
  const past = asksAboutThePast(request.question)
  const currency = (context: AnswerContext) => (context.outdated ? (past ? 1.5 : 0.4) : 1)
  // "Where did she live before Lisbon?": a sentence naming Lisbon is what came after, not the answer.
  const after = past
    ? /\b(?:before|prior to|until)\s+(?:(?:the|his|her|their|my|our|a|an)\s+)?(\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*)*)/u.exec(
        request.question
      )?.[1]
    : undefined
  const beyond = (text: string) =>
    after !== undefined && text.toLowerCase().includes(after.toLowerCase()) ? 0.3 : 1
  // "My sister Ana just got engaged" does not say whom the writer dates: someone else's news
  // answers a question only when the question names them ("Who is Malia's sister marrying?").
  // A list gathers what the memories name in passing ("My aunt taught me to bead" names a craft).
  // A sentence with no word of the writer's own goes on with the news its memory opened with
  // ("My neighbour Ildikó became a great-grandmother! At 78!"): whether its memory did is read
  // once per memory.
  const openedWithOthers = (context: AnswerContext) =>
    type !== "list" && othersNewsUnasked(context.content, request.question)
  const whose = (text: string, memoryOpenedWithOthers: boolean) =>
    type !== "list" &&
    (othersNewsUnasked(text, request.question) || (memoryOpenedWithOthers && !firstPerson.test(text)))
      ? 0.4
      : 1
  // The search's order knows more than the words a sentence shares with the question (a newer
  // value put first, the reranker's reading): a later context must share more to win. 0.2: on
  // LoCoMo (every 4th question) F1 23.6 without it, 24.3 at 0.1, 24.4 at 0.2.
  const rankPrior = (context: AnswerContext) => 1 / (1 + 0.2 * (context.index - 1))
  // The search read which memory holds how things stand now, whatever its words ("Nobody warned me
  // Nairobi gets THIS cold"): the answer is one of its sentences, and then the question's words for
  // now say nothing of which ("Uni boy now lol"). "Is she still vegan?" asks about being vegan either way.
  const current = past ? undefined : request.contexts.find((c) => c.current === true)
  const timeWords = new RegExp((current === undefined ? stillWords : nowWords).source, "gi")
  const asked = new Set(contentWords(request.question.replace(timeWords, " ")))
  const wanted = wantedEntityTypes[type]
  // A question word found in every retrieved memory (a name they all carry, say) tells them apart
  // less than one found in a single memory: each word weighs by its rarity among the memories.
  const memoryWords = request.contexts.map((c) => new Set(contentWords(c.content)))
  // A name in the question (the speaker's, often) says little about which sentence answers it.
  const names = new Set(
    contentWords((request.question.match(/(?<=\S\s+)\p{Lu}[\p{L}'’-]*/gu) ?? []).join(" "))
  )
  const weight = (w: string) =>
    Math.log(1 + (memoryWords.length + 1) / (1 + memoryWords.filter((m) => m.has(w)).length)) *
    (names.has(w) ? 0.25 : 1)
  const askedWeight = [...asked].reduce((sum, w) => sum + weight(w), 0)
  const candidates: Array<Candidate> = request.contexts.flatMap((context) => {
    const othersOpened = openedWithOthers(context)
    return splitSentences(context.content).map((s) => {
      const text = context.content.slice(s.start, s.end)
      const shared = [...new Set(contentWords(text))].filter((w) => asked.has(w))
      const overlap = askedWeight === 0 ? 0 : shared.reduce((sum, w) => sum + weight(w), 0) / askedWeight
      // A "where" answer must name a place, a "when" answer a date: without one a sentence can
      // only be a weak answer, however many question words it repeats.
      const entities = wanted.length === 0 ? [] : findEntities(text, context.timestamp)
      const spans = answeredWhole.has(type) ? [] : answerSpans(text, request.question)
      // A sentence that adds nothing to the question's words cannot answer a "what" question.
      const adds = (type !== "factual" && type !== "list") || spans.length > 0 ? 1 : 0.3
      const fit =
        wanted.length === 0
          ? overlap * adds
          : entities.some((e) => wanted.includes(e.type))
            ? overlap + 0.3
            : nameIn(type, text, request.question.toLowerCase()) !== undefined
              ? overlap + 0.2
              : overlap * 0.4
      // A sentence that shares no word with a "what" question may still be the answer the search
      // found by meaning ("What does she do in her free time?"): it scores a little, by that. A
      // "where" or "when" answer still needs its place or date.
      const meaning = wanted.length === 0 ? 0.1 * Math.max(0, context.similarity) : 0
      return {
        context,
        text,
        entities,
        spans,
        score:
          (fit + meaning) *
          (0.5 + 0.5 * Math.max(0, context.similarity)) *
          rankPrior(context) *
          currency(context) *
          beyond(text) *
          whose(text, othersOpened)
      }
    })
  })
  // The memory the search read as current answers when one of its sentences can.
  const scored = candidates.filter((c) => c.score > 0)
  const fromCurrent = scored.filter((c) => c.context === current)
  const ranked = (fromCurrent.length > 0 ? fromCurrent : scored).sort((a, b) => b.score - a.score)
  if (ranked.length === 0) {
    return nothingToGoOn(request.question)
  }
  // A list is quoted whole from the two best memories: a sentence that names several of its items
  // ("kathak on Saturdays, running on Wednesdays") names them all only whole.
  const chosen = (
    type === "list"
      ? ranked.filter((c, i) => ranked.findIndex((o) => o.context.index === c.context.index) === i)
      : ranked
  ).slice(0, type === "list" ? 2 : type === "open" ? 3 : 1)
  const citations = new Map<number, Citation>()
  for (const c of chosen) {
    if (!citations.has(c.context.index)) {
      citations.set(c.context.index, citationOf(c.context, c.text))
    }
  }
  // The short answer (several for a list), each with its [n]; whole sentences for an open
  // question, when a sentence gives no short answer, or when its run of words is a guess; a yes or
  // no with the sentence that says so.
  const parts = chosen.map((c) => {
    const short = type === "list" ? undefined : shortAnswer(type, c, request.question)
    // A short memory is quoted whole (see `quotedOf`), but for lists and open questions, which gather sentences.
    const sentence =
      type === "list" || type === "open" ? c.text.replace(/\s*$/, "") : quotedOf(c.context, c.text)
    const guess = short?.quoted === "instead" && Math.min(1, c.score) * short.sureness < guessBelow
    // What the search read as how things stand now, no stated fact saying so ("Takealot lanyard
    // on, first standup done"), is quoted after its short answer: the reader sees what it rests on.
    const inferred = c.context === current && short !== undefined && !guess
    return {
      text:
        short === undefined || guess
          ? sentence
          : short.quoted === "after" || inferred
            ? `${short.text} — ${sentence}`
            : short.text,
      sureness: short?.sureness ?? 0.6,
      index: c.context.index
    }
  })
  const distinct = parts.filter(
    (p, i) => parts.findIndex((q) => q.text.toLowerCase() === p.text.toLowerCase()) === i
  )
  const body = distinct.map((p) => `${p.text} [${p.index}]`).join(type === "list" ? "; " : " ")
  return {
    answer: body,
    citations: [...citations.values()].sort((a, b) => a.index - b.index),
    confidence: Math.round(Math.min(1, chosen[0]!.score) * parts[0]!.sureness * 1e4) / 1e4,
    method: "extractive",
    question_type: type
  }
}

/** The extractive answerer as an answer model: local, the default when no LLM is configured. */
export const extractive: AnswerModelShape = {
  id: extractiveModelId,
  kind: "local",
  method: "extractive",
  answer: (request) =>
    Effect.sync(() => answer(request)).pipe(Effect.withSpan(`AnswerModel.${extractiveModelId}`))
}
