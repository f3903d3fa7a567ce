import { clipText, type Draft, makePlugin, type Plugin, sentenceText, type Tone, type Topic } from "@umo/core"
import { Effect } from "effect"
import { its, readWink } from "./Engines.js"
import { runNlp } from "./Workers.js"

const round = (x: number): number => Math.round(x * 10_000) / 10_000

// Nouns too general to say what a text is about.
const vagueNouns = new Set([
  "thing",
  "things",
  "stuff",
  "way",
  "lot",
  "time",
  "day",
  "today",
  "yesterday",
  "tomorrow",
  "something",
  "anything",
  "everything",
  "nothing",
  "one",
  "people",
  "kind",
  "bit",
  "part",
  "fact",
  "someone"
])

/**
 * Topics: the text's salient nouns and compound nouns ("support group", "Marie Curie"), from
 * wink-nlp's part-of-speech tags, lemmatized and lowercase, weighted by frequency with a bonus
 * for appearing early and for multi-word names; the top `max`, scores relative to the strongest.
 */
export const findTopics = (text: string, max = 5): ReadonlyArray<Topic> => {
  const doc = readWink(text)
  const tags = doc.tokens().out(its.pos) as Array<string>
  // wink types its.lemma as needing model add-ons; the lite English model ships them.
  const lemmas = doc.tokens().out(its.lemma as typeof its.value) as Array<string>
  const values = doc.tokens().out(its.value) as Array<string>
  const phrases: Array<string> = []
  let run: Array<string> = []
  const flush = () => {
    if (run.length > 0 && run.length <= 4) phrases.push(run.join(" "))
    run = []
  }
  tags.forEach((tag, i) => {
    const word = ((tag === "NOUN" ? lemmas[i] : values[i]) ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}'&-]/gu, "")
    if ((tag === "NOUN" || tag === "PROPN") && word.length > 0 && !vagueNouns.has(word)) run.push(word)
    else flush()
  })
  flush()
  const weights = new Map<string, number>()
  phrases.forEach((phrase, position) => {
    if (vagueNouns.has(phrase) || phrase.length < 3 || !/\p{L}/u.test(phrase)) return
    const weight = 1 + 0.25 * (phrase.split(" ").length - 1) + 0.5 / (1 + position)
    weights.set(phrase, (weights.get(phrase) ?? 0) + weight)
  })
  const ranked = [...weights.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, max)
  const top = ranked[0]?.[1] ?? 1
  return ranked.map(([name, weight]) => ({ name, score: round(weight / top) }))
}

/** Tone from wink-nlp's lexicon sentiment, in [-1, 1]; |score| < `neutralBand` is neutral. */
export const findTone = (text: string, neutralBand = 0.15): Tone => {
  const raw = readWink(text).out(its.sentiment) as unknown as number
  const score = round(Math.max(-1, Math.min(1, Number.isFinite(raw) ? raw : 0)))
  return { label: score >= neutralBand ? "positive" : score <= -neutralBand ? "negative" : "neutral", score }
}

const stopwords = new Set(
  "a an and are as at be been but by for from had has have he her his i if in into is it its me my of on or our she so than that the their them there they this to was we were what when which who will with would you your".split(
    " "
  )
)

/**
 * An extractive summary: sentences scored by the frequency of their content words (normalized
 * by the square root of their length) plus a bonus for the opening sentence; the best ones, in
 * text order, up to `maxChars`. A text of one or two short sentences is its own summary.
 */
export const summarize = (draft: Pick<Draft, "content" | "sentences">, maxChars = 400): string => {
  const sentences = draft.sentences.length > 0 ? draft.sentences : [{ start: 0, end: draft.content.length }]
  const texts = sentences.map((s) => sentenceText(draft as Draft, s).trim()).filter((t) => t.length > 0)
  if (texts.length === 0) return ""
  const whole = texts.join(" ")
  if (texts.length <= 2 && whole.length <= maxChars) return whole
  const wordsOf = (t: string) =>
    (t.toLowerCase().match(/\p{L}[\p{L}'’-]*/gu) ?? []).filter((w) => !stopwords.has(w))
  const frequency = new Map<string, number>()
  for (const text of texts) for (const w of wordsOf(text)) frequency.set(w, (frequency.get(w) ?? 0) + 1)
  const scored = texts.map((text, i) => {
    const words = wordsOf(text)
    const sum = words.reduce((acc, w) => acc + (frequency.get(w) ?? 0), 0)
    return { i, text, score: sum / Math.sqrt(words.length + 1) + (i === 0 ? 1.5 : 0) }
  })
  const wanted = Math.min(3, Math.max(1, Math.ceil(texts.length / 5)))
  const chosen: Array<{ i: number; text: string }> = []
  let length = 0
  for (const candidate of [...scored].sort((a, b) => b.score - a.score || a.i - b.i)) {
    if (chosen.length >= wanted) break
    if (chosen.length > 0 && length + candidate.text.length > maxChars) continue
    chosen.push(candidate)
    length += candidate.text.length + 1
  }
  const summary = chosen
    .sort((a, b) => a.i - b.i)
    .map((c) => c.text)
    .join(" ")
  return clipText(summary, maxChars)
}

/** Topics, tone and summary of a text whose sentences are known. */
export const findEnrichment = (content: string, sentences: Draft["sentences"]) => ({
  topics: findTopics(content),
  tone: findTone(content),
  summary: summarize({ content, sentences })
})

/** The enrich stage: topics, tone and an extractive summary (in a worker thread for a long text). */
export const enrich = (): Plugin =>
  makePlugin({
    name: "enrich",
    version: "1.0.0",
    stage: "enrich",
    run: (draft: Draft) =>
      Effect.map(runNlp("enrichment", findEnrichment, draft.content, draft.sentences), (found) => ({
        ...draft,
        ...found
      }))
  })
