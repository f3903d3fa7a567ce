/**
 * Answers from the facts memories state, before any sentence is scored: when a question asks for a
 * kind of fact (where someone lives, their employer, email, how many children…, see `askedFacts`)
 * and the retrieved memories state it about the person asked (by the fact finder's rules, read
 * again from the content, or as their capture stored it: the slot sense's), the answer is the
 * value as the memory writes it, cited:
 *
 * - about now: the newest value, from a memory no newer one replaced;
 * - about the past ("before Lisbon", "her old number"): the value just before the one the question
 *   names, or else before the newest;
 * - in the past tense, naming what sets one value apart ("her email when she worked at Finlytics"):
 *   that value;
 * - of a kind that holds several at once (pets, likes, plans): every value still held.
 *
 * Otherwise (no such fact, a yes-or-no question, a single additive value) it gives nothing and the
 * sentences answer.
 * @module
 */
import {
  type Answer,
  type AnswerContext,
  type AnswerRequest,
  answersAsked,
  type QuestionType,
  valueBefore
} from "@umo/core"
import { type AskedFacts, askedFacts } from "../nlp/FactQuestions.js"
import { type Fact, statedFacts } from "../nlp/Facts.js"
import { placeOfAskedKind } from "./AskedPlace.js"
import { citationOf, quotedOf } from "./Citations.js"
import { asksAboutThePast, asksForTheFirst } from "./QuestionType.js"

/** A fact one retrieved memory states, with that memory. */
interface Held {
  readonly context: AnswerContext
  readonly fact: Fact
  readonly time: number
}

/**
 * Whether a fact is one the question asks for, about the person it asks about. A plan's kind
 * stated for a plan named further (`plan:trip` beside `plan:trip:japan`) is for updates, not answers.
 */
const isAsked = (asked: AskedFacts, fact: Fact) =>
  fact.mode !== "keep" &&
  !(
    /^plan:[^:]+$/.test(fact.attribute) &&
    (fact.mode === "add" || (fact.mode === "end" && fact.value !== "*"))
  ) &&
  asked.attributes.some((a) => answersAsked(fact.attribute, a)) &&
  (asked.subject === undefined || fact.subject === "self" || fact.subject === asked.subject)

/** The value as the content writes it ("iFood" for `ifood`), or the value itself when it is not found written. */
const writtenIn = (content: string, value: string): string => {
  const lower = content.toLowerCase()
  const at = lower.length === content.length ? lower.indexOf(value) : -1
  return at < 0 ? value : content.slice(at, at + value.length)
}

/**
 * The facts a context states: the rules', read again from its content (with each value as
 * written), and those its capture stored beyond them (the slot sense's, which only embeddings read).
 */
const factsIn = (context: AnswerContext): ReadonlyArray<Fact> => {
  const read = statedFacts(context.content)
  const stored = (context.facts ?? []).filter(
    (s) => !read.some((r) => r.subject === s.subject && r.attribute === s.attribute && r.value === s.value)
  )
  return [...read, ...stored.map((s) => ({ ...s, written: writtenIn(context.content, s.value) }))]
}

/** The facts the contexts state that answer the question, oldest first. */
const heldFacts = (asked: AskedFacts, contexts: ReadonlyArray<AnswerContext>): ReadonlyArray<Held> =>
  contexts
    .flatMap((context) =>
      factsIn(context)
        .filter((fact) => isAsked(asked, fact))
        .map((fact) => ({ context, fact, time: Date.parse(context.timestamp) }))
    )
    .sort((a, b) => a.time - b.time || a.context.index - b.context.index)

/**
 * Whether a question names a value: the whole of it ("before Buenos Aires"), or a word of it of
 * four letters or more ("before the Prius" names "prius prime", "before he became a lead" "tech lead").
 */
export const mentions = (question: string, value: string): boolean => {
  const text = question.toLowerCase().normalize("NFC")
  if (value.length > 1 && text.includes(value)) return true
  const words = new Set(text.match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’-]*/gu) ?? [])
  return value.split(/\s+/).some((w) => w.length >= 4 && words.has(w))
}

/** The facts of each slot (whom and what), in the order the question asks for them. */
const bySlot = (asked: AskedFacts, held: ReadonlyArray<Held>): ReadonlyArray<ReadonlyArray<Held>> => {
  const slots = new Map<string, Array<Held>>()
  const rank = (h: Held) => asked.attributes.findIndex((a) => answersAsked(h.fact.attribute, a))
  for (const h of [...held].sort((a, b) => rank(a) - rank(b) || a.time - b.time)) {
    const key = `${h.fact.subject}|${h.fact.attribute}`
    slots.set(key, [...(slots.get(key) ?? []), h])
  }
  return [...slots.values()]
}

/** The value before, for a question about the past, in the first slot asked that has one (see `valueBefore`). */
const before = (asked: AskedFacts, question: string, held: ReadonlyArray<Held>): Held | undefined =>
  bySlot(asked, held)
    .map(
      (line) =>
        valueBefore(
          line.map((h) => ({ ...h.fact, held: h })),
          (value) => mentions(question, value),
          asksForTheFirst(question)
        )?.held
    )
    .find((h) => h !== undefined)

/**
 * For a question in the past tense that names what sets one value apart ("What was her email when
 * she worked at Finlytics?"): the one value of the slot holding that name, when only one does.
 */
const pointedAt = (question: string, held: ReadonlyArray<Held>): Held | undefined => {
  // "before Lisbon" anchors on the value after the one asked for (see `before`); "now" asks the newest.
  if (
    !/\b(?:was|were|did|had)\b/i.test(question) ||
    /\b(?:now|currently|these days|before|after|prior to|until|since|instead of)\b/i.test(question)
  )
    return undefined
  const names = (question.match(/(?<=\S\s+)\p{Lu}[\p{L}'’-]{2,}/gu) ?? []).map((n) =>
    n.replace(/['’]s$/u, "").toLowerCase()
  )
  const set = held.filter((h) => h.fact.mode === "set")
  for (const name of names) {
    // A question naming the value itself ("the trip planned for May") asks something else of it.
    const holding = set.filter((h) => h.fact.value !== name && h.fact.value.includes(name))
    if (new Set(holding.map((h) => h.fact.value)).size === 1) return holding.at(-1)
  }
  return undefined
}

/**
 * The newest value of a single-valued fact: what the newest memory no newer one replaced sets it
 * to. When a newer memory the rules could not read replaced every one, the sentences answer.
 */
const current = (held: ReadonlyArray<Held>): Held | undefined => {
  const newest = held.filter((h) => !h.context.outdated).at(-1)
  if (newest === undefined) return undefined
  return held.filter((h) => h.context === newest.context && h.fact.mode === "set").at(-1)
}

/** Every value of a fact that holds several at once, in the order they came, that no later fact ended. */
const stillHeld = (held: ReadonlyArray<Held>): ReadonlyArray<Held> => {
  const latest = new Map<string, Held>()
  for (const h of held) {
    const key = `${h.fact.subject}|${h.fact.attribute}`
    if (h.fact.mode === "end" && h.fact.value === "*") {
      for (const k of [...latest.keys()]) if (k.startsWith(`${key}|`)) latest.delete(k)
      continue
    }
    latest.set(`${key}|${h.fact.value}`, h)
  }
  return [...latest.values()].filter((h) => h.fact.mode === "add")
}

const joined = (parts: ReadonlyArray<string>) =>
  parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`

/**
 * "Does she still have Poi?", "Is the Peru trip still on?": the latest fact about what the question
 * names (or about the kind it asks for) answers: ended is no, held is yes, with the memory that says so.
 */
const stillAnswer = (request: AnswerRequest, held: ReadonlyArray<Held>, type: QuestionType) => {
  if (!/\b(?:still|anymore|any more|now)\b/i.test(request.question)) return undefined
  // The slots the question names, by a value ("Poi") or by what sets a plan apart ("the Peru trip").
  const slotOf = (h: Held) => `${h.fact.subject}|${h.fact.attribute}`
  const qualifier = (h: Held) => /^plan:[^:]+:(.+)$/.exec(h.fact.attribute)?.[1] ?? ""
  const named = new Set(
    held
      .filter((h) => mentions(request.question, h.fact.value) || mentions(request.question, qualifier(h)))
      .map(slotOf)
  )
  const latest = (named.size > 0 ? held.filter((h) => named.has(slotOf(h))) : held).at(-1)
  if (latest === undefined || (latest.fact.mode === "set" && named.size === 0)) return undefined
  const sentence = quotedOf(latest.context, latest.context.content.split(/(?<=[.!?])\s+/)[0]!)
  return {
    answer: `${latest.fact.mode === "end" ? "No" : "Yes"}: ${sentence} [${latest.context.index}]`,
    citations: [citationOf(latest.context, latest.context.content)],
    confidence: 0.8,
    method: "extractive" as const,
    question_type: type
  }
}

/** The kinds of fact whose values answer each kind of question ("when" a plan's date, "how many" a count…). */
const answerable: Partial<Record<QuestionType, RegExp>> = {
  temporal: /^plan:/,
  quantity: /^count:/,
  location: /^(?:residence|address|school|employer)$/,
  person: /^(?:partner|employer|pet)$/
}

/** The answer from stated facts, or undefined when the sentences must answer. */
export const factAnswer = (request: AnswerRequest, type: QuestionType): Answer | undefined => {
  const asked = askedFacts(request.question)
  if (asked.attributes.length === 0) return undefined
  const fits = answerable[type]
  const held = heldFacts(asked, request.contexts).filter(
    (h) => fits === undefined || fits.test(h.fact.attribute)
  )
  if (held.length === 0) return undefined
  if (type === "yes_no") return stillAnswer(request, held, type)
  const several = held.some((h) => h.fact.mode === "add")
  const pointed = several ? undefined : pointedAt(request.question, held)
  const chosen =
    pointed !== undefined
      ? [pointed]
      : asksAboutThePast(request.question)
        ? [before(asked, request.question, held)]
        : several
          ? stillHeld(held)
          : [current(held)]
  const answers = chosen.filter((h): h is Held => h !== undefined && h.fact.written.length > 0)
  // A value the question names is what it asks about, not the answer ("Who does Pancho live with now?").
  if (answers.length > 0 && answers.every((h) => mentions(request.question, h.fact.value))) return undefined
  // One value where the question asks for several may be one of many the memories name in passing.
  if (answers.length === 0 || (type === "list" && answers.length < 2)) return undefined
  const distinct = answers.filter((h, i) => answers.findIndex((o) => o.fact.value === h.fact.value) === i)
  const citations = [...new Map(distinct.map((h) => [h.context.index, h.context])).values()]
    .sort((a, b) => a.index - b.index)
    .map((context) => citationOf(context, context.content))
  // "Which city…?" of a home written as its neighbourhood: the city the memory names (see `AskedPlace`).
  const said = (h: Held) =>
    (h.fact.attribute === "residence"
      ? placeOfAskedKind(request.question, h.context.content, h.fact.written)
      : undefined) ?? h.fact.written
  return {
    answer: joined(distinct.map((h) => `${said(h)} [${h.context.index}]`)),
    citations,
    confidence: Math.round(Math.min(1, 0.5 + 0.5 * Math.max(0, distinct[0]!.context.similarity)) * 1e4) / 1e4,
    method: "extractive",
    question_type: type
  }
}
