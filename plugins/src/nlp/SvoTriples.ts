import { type Draft, type Entity, makePlugin, type Plugin, type SvoTriple } from "@umo/core"
import { Effect } from "effect"
import { its, readWink, tokenOffsets } from "./Engines.js"
import { runNlp } from "./Workers.js"

interface Token {
  readonly value: string
  readonly pos: string
  readonly start: number
  readonly end: number
  /** Inside a DATE, TIME or DURATION entity. */
  readonly inDate: boolean
}

interface Phrase {
  readonly from: number
  readonly to: number // exclusive, in tokens
}

const nominal = new Set(["NOUN", "PROPN", "PRON", "NUM"])
const modifiers = new Set(["ADJ", "NUM", "NOUN", "PROPN"])
const negations = new Set(["not", "n't", "never", "no"])
const relativePronouns = new Set(["who", "which", "that", "whom", "whose"])
const personalPronouns = new Set(["he", "she", "him", "her"])
const joiners = new Set(["of", "'s", "&"])
const nameTypes = new Set(["PERSON", "ORGANIZATION", "LOCATION"])
const dateTypes = new Set(["DATE", "TIME", "DURATION"])

const isVerbal = (t: Token | undefined) => t !== undefined && (t.pos === "VERB" || t.pos === "AUX")
const isModifier = (t: Token | undefined) =>
  t !== undefined && (modifiers.has(t.pos) || (t.pos === "SYM" && /^[$€£¥]$/.test(t.value)))
const isConjunction = (t: Token | undefined) => t?.pos === "CCONJ" && /^(?:and|or)$/i.test(t.value)
const isProper = (tokens: ReadonlyArray<Token>, p: Phrase) => tokens[p.to - 1]!.pos === "PROPN"

/** The body of a noun phrase starting at `i` (no coordination): modifiers and nouns over "of"/"'s". */
const simplePhraseAt = (tokens: ReadonlyArray<Token>, i: number): Phrase | null => {
  let j = i
  while (tokens[j]?.pos === "DET") j++
  const bodyStart = j
  while (j < tokens.length && (isModifier(tokens[j]) || tokens[j]!.pos === "PRON")) {
    const t = tokens[j]!
    if (t.pos === "PRON" && relativePronouns.has(t.value.toLowerCase())) break
    // A phrase that started outside a date stops where one begins ("the group | yesterday").
    if (j > bodyStart && t.inDate !== tokens[bodyStart]!.inDate) break
    j++
    // "University of Paris", "Marie's lab": continue over a joining word followed by a noun.
    if (joiners.has(tokens[j]?.value ?? "") && isModifier(tokens[j + 1])) j++
  }
  return j > bodyStart && tokens.slice(bodyStart, j).some((t) => nominal.has(t.pos))
    ? { from: bodyStart, to: j }
    : null
}

/**
 * A noun phrase starting at `i`, with a coordinated second phrase of the same kind ("Vienna and
 * Budapest") unless that one starts a new clause (is followed by a verb).
 */
const nounPhraseAt = (tokens: ReadonlyArray<Token>, i: number): Phrase | null => {
  const first = simplePhraseAt(tokens, i)
  if (!first || !isConjunction(tokens[first.to])) return first
  const second = simplePhraseAt(tokens, first.to + 1)
  return second && isProper(tokens, first) === isProper(tokens, second) && !isVerbal(tokens[second.to])
    ? { from: first.from, to: second.to }
    : first
}

/** The noun phrase that ends just before `end` (skipping adverbs), searching no further back than `floor`. */
const nounPhraseBefore = (tokens: ReadonlyArray<Token>, end: number, floor: number): Phrase | null => {
  let to = end
  while (to > floor && tokens[to - 1]!.pos === "ADV") to--
  let from = to
  while (from > floor) {
    const t = tokens[from - 1]!
    const joins = joiners.has(t.value) && from - 2 >= floor && isModifier(tokens[from - 2])
    if (isModifier(t) || (t.pos === "PRON" && from === to) || joins) from--
    else break
  }
  if (!tokens.slice(from, to).some((t) => nominal.has(t.pos))) return null
  const phrase = { from, to }
  // "James and Emma adopted …": take in a coordinated phrase of the same kind.
  if (from - 1 > floor && isConjunction(tokens[from - 1])) {
    const before = nounPhraseBefore(tokens, from - 1, floor)
    if (before && isProper(tokens, before) === isProper(tokens, phrase)) return { from: before.from, to }
  }
  return phrase
}

const resolvePronoun = (text: string, at: number, entities: ReadonlyArray<Entity>): string => {
  if (!personalPronouns.has(text.toLowerCase())) return text
  const antecedent = entities.filter((e) => e.type === "PERSON" && e.end <= at).at(-1)
  return antecedent?.text ?? text
}

/**
 * Subject–verb–object triples, one per verb group that has both a subject and an object.
 * Relies on wink-nlp's part-of-speech tags: a verb group is a run of auxiliaries, verbs and
 * negations; a following preposition or particle joins the verb ("born in"); the object is the
 * noun phrase after it; the subject is the noun phrase before it, or the previous subject for a
 * coordinated verb ("… and worked in Paris"), or the noun before a relative pronoun. "he"/"she"
 * become the closest preceding PERSON entity.
 */
export const findTriples = (text: string, entities: ReadonlyArray<Entity> = []): ReadonlyArray<SvoTriple> => {
  const doc = readWink(text)
  const offsets = tokenOffsets(text, doc)
  const values = doc.tokens().out(its.value) as Array<string>
  const tags = doc.tokens().out(its.pos) as Array<string>
  // A token inside a name (PERSON, ORGANIZATION, LOCATION) is a proper noun, whatever the tagger
  // guessed: "Tim Cook" must not read as a verb "cook".
  const within = (types: Set<string>, at: { start: number; end: number }) =>
    entities.some((e) => types.has(e.type) && e.start <= at.start && at.end <= e.end)
  const all: Array<Token> = values.map((value, i) => {
    const at = offsets[i]!
    return {
      value,
      pos: within(nameTypes, at) ? "PROPN" : (tags[i] ?? "X"),
      inDate: within(dateTypes, at),
      ...at
    }
  })
  const triples: Array<SvoTriple> = []
  // A phrase cut inside a named entity ("hired Tim | Cook") is widened to the whole entity.
  const phraseText = (tokens: ReadonlyArray<Token>, p: Phrase) => {
    let start = tokens[p.from]!.start
    let end = tokens[p.to - 1]!.end
    for (const e of entities) {
      if (e.start < end && start < e.end) {
        start = Math.min(start, e.start)
        end = Math.max(end, e.end)
      }
    }
    return text.slice(start, end)
  }

  const sentences = doc.sentences().out(its.span) as unknown as Array<[number, number]>
  for (const [first, last] of sentences) {
    const tokens = all.slice(first, last + 1)
    let subject: string | null = null
    let floor = 0
    let i = 0
    while (i < tokens.length) {
      if (!isVerbal(tokens[i])) {
        i++
        continue
      }
      const groupStart = i
      while (
        i < tokens.length &&
        (isVerbal(tokens[i]) ||
          negations.has(tokens[i]!.value.toLowerCase()) ||
          (tokens[i]!.pos === "PART" && tokens[i]!.value.toLowerCase() === "to"))
      )
        i++
      let verbEnd = i
      while (
        tokens[verbEnd]?.pos === "ADP" ||
        (tokens[verbEnd]?.pos === "PART" && !negations.has(tokens[verbEnd]!.value.toLowerCase()))
      )
        verbEnd++

      const before = nounPhraseBefore(tokens, groupStart, floor)
      const previous = tokens[groupStart - 1]
      if (before) {
        subject = resolvePronoun(phraseText(tokens, before), tokens[before.from]!.start, entities)
      } else if (previous && previous.pos === "PRON" && relativePronouns.has(previous.value.toLowerCase())) {
        const antecedent = nounPhraseBefore(tokens, groupStart - 1, 0)
        if (antecedent) subject = phraseText(tokens, antecedent)
      } else if (!(previous && (previous.pos === "CCONJ" || previous.value === ","))) {
        subject = null
      }
      const object = nounPhraseAt(tokens, verbEnd)
      const verb = tokens
        .slice(groupStart, verbEnd)
        .map((t) => t.value.toLowerCase())
        .join(" ")
      if (subject && object) triples.push({ subject, verb, object: phraseText(tokens, object) })
      floor = object ? object.to : verbEnd
      i = Math.max(verbEnd, floor)
    }
  }
  return triples
}

/** The parse stage: subject–verb–object triples per clause. */
export const svoTriples = (): Plugin =>
  makePlugin({
    name: "svo-triples",
    version: "1.0.0",
    stage: "parse",
    run: (draft: Draft) =>
      Effect.map(runNlp("triples", findTriples, draft.content, draft.entities), (svo_triples) => ({
        ...draft,
        svo_triples
      }))
  })
