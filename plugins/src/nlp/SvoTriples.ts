import { type Draft, type Entity, makePlugin, type Plugin, type SvoTriple } from "@umo/core"
import { Effect } from "effect"
import { its, readWink, tokenOffsets } from "./Engines.js"

interface Token {
  readonly value: string
  readonly pos: string
  readonly start: number
  readonly end: number
}

interface Phrase {
  readonly from: number
  readonly to: number // exclusive, in tokens
}

const nominal = new Set(["NOUN", "PROPN", "PRON", "NUM"])
const modifier = new Set(["ADJ", "NUM", "NOUN", "PROPN"])
const negations = new Set(["not", "n't", "never", "no"])
const relativePronouns = new Set(["who", "which", "that", "whom", "whose"])
const personalPronouns = new Set(["he", "she", "him", "her"])
const nameTypes = new Set(["PERSON", "ORGANIZATION", "LOCATION"])

const isVerbal = (t: Token | undefined) => t !== undefined && (t.pos === "VERB" || t.pos === "AUX")

/** A noun phrase starting at `i`: determiners, modifiers, then nouns, joined over "of"/"'s". */
const nounPhraseAt = (tokens: ReadonlyArray<Token>, i: number): Phrase | null => {
  let j = i
  while (tokens[j]?.pos === "DET") j++
  const bodyStart = j
  while (j < tokens.length && (modifier.has(tokens[j]!.pos) || tokens[j]!.pos === "PRON")) {
    if (tokens[j]!.pos === "PRON" && relativePronouns.has(tokens[j]!.value.toLowerCase())) break
    j++
    // "University of Paris", "Marie's lab": continue over a joining word followed by a noun.
    const joiner = tokens[j]
    if (
      joiner &&
      (joiner.value === "of" || joiner.value === "'s" || joiner.value === "&") &&
      modifier.has(tokens[j + 1]?.pos ?? "")
    )
      j++
  }
  const hasHead = tokens.slice(bodyStart, j).some((t) => nominal.has(t.pos))
  return hasHead && j > bodyStart ? { from: bodyStart, to: j } : null
}

/** The noun phrase that ends just before `end` (skipping adverbs), searching no further back than `floor`. */
const nounPhraseBefore = (tokens: ReadonlyArray<Token>, end: number, floor: number): Phrase | null => {
  let to = end
  while (to > floor && tokens[to - 1]!.pos === "ADV") to--
  let from = to
  while (from > floor) {
    const t = tokens[from - 1]!
    const joins =
      (t.value === "of" || t.value === "'s" || t.value === "&") &&
      from - 2 >= floor &&
      modifier.has(tokens[from - 2]!.pos)
    if (modifier.has(t.pos) || (t.pos === "PRON" && from === to) || joins) from--
    else break
  }
  const phrase = tokens.slice(from, to)
  return phrase.some((t) => nominal.has(t.pos)) ? { from, to } : null
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
  const names = entities.filter((e) => nameTypes.has(e.type))
  const all: Array<Token> = values.map((value, i) => {
    const at = offsets[i]!
    const inName = names.some((e) => e.start <= at.start && at.end <= e.end)
    return { value, pos: inName ? "PROPN" : (tags[i] ?? "X"), ...at }
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
      Effect.sync(() => ({ ...draft, svo_triples: findTriples(draft.content, draft.entities) }))
  })
