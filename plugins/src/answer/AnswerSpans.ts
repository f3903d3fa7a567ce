/**
 * The short part of a sentence that answers a question: what the sentence says that the question
 * does not. "What did Nate use to make it lactose-free?" over "I used coconut milk to make it
 * lactose-free!" is "coconut milk" — the run of new words next to the words the two share.
 */
import { stillWords } from "./QuestionType.js"

const stopwords = new Set(
  "a an and are as at be been but by did do does for from had has have he her his how i if in into is it its just me my of on or our she so than that the their them there they this to was we were what when where which who whom why will with would you your really also very too about some".split(
    " "
  )
)

/** A word reduced to what its inflections share ("used", "uses", "using" → "us"). */
const stem = (word: string) =>
  word
    .toLowerCase()
    .replace(/(?:'s|’s)$/u, "")
    .replace(/(?:ing|ed|es|e|s)$/u, "")

/** Stems written two ways, and everyday words for one thing, as one: "my fave film" is a favourite. */
const sameStem: Readonly<Record<string, string>> = {
  favorit: "favourit",
  fav: "favourit",
  colour: "color",
  kid: "child",
  children: "child"
}

/** A word as it is compared: stemmed, one stem for one thing. */
const canonical = (word: string) => {
  const stemmed = stem(word)
  return sameStem[stemmed] ?? stemmed
}

/** The content words of a text, stemmed: what a question and a sentence are compared by. */
export const contentWords = (text: string) =>
  (text.toLowerCase().match(/\p{L}[\p{L}\p{N}'’-]*|\p{N}+/gu) ?? [])
    .filter((w) => w.length > 1 && !stopwords.has(w))
    .map(canonical)

interface Token {
  readonly start: number
  readonly end: number
  /** Punctuation ends a span; a stopword may sit inside one but not at its edges. */
  readonly kind: "asked" | "stop" | "new" | "break"
}

const tokenize = (sentence: string, asked: ReadonlySet<string>): Array<Token> =>
  [...sentence.matchAll(/\p{L}[\p{L}\p{N}'’-]*|\p{N}+(?:[.,:]\p{N}+)*|[,;:.!?()"“”—]/gu)].map((m) => {
    const word = m[0]
    const lower = word.toLowerCase()
    const kind = !/[\p{L}\p{N}]/u.test(word)
      ? "break"
      : stopwords.has(lower) || lower.length < 2
        ? "stop"
        : asked.has(canonical(lower))
          ? "asked"
          : "new"
    return { start: m.index, end: m.index + word.length, kind }
  })

/** Longest span offered, in words: an answer is a phrase, not a clause. */
const maxWords = 8

export interface Span {
  readonly text: string
  readonly score: number
  /**
   * Whether it names what the question asks about: what the subject of a "who is …" question is,
   * or the kind a "what kind of …" question asks for.
   */
  readonly names: boolean
}

/** "Who is Lily?", "What was Plato?": the question names a thing and asks what it is. */
const definitional = /^\s*(?:who|what)\s+(?:is|was|are|were)\s+[^\s?]+(?:\s+[^\s?]+)?\s*\??\s*$/i
const copula = /^(?:is|was|are|were|'s|’s)$/i
/**
 * "What kind of dance…", "What book…": the answer usually names it, right before the noun. Not
 * when a verb follows the noun ("What book did…"): then the noun is the object asked about.
 */
const kindOf =
  /^\s*(?:what|which)\s+(?:(?:kind|type|sort|style|genre|form)s?\s+of\s+)?(?!(?:is|was|are|were|did|do|does|has|have|had|can|could|would|will|should|might)\b)\p{L}+\b(?!\s+(?:is|was|are|were|did|do|does|has|have|had)\b)/iu

/**
 * The runs of words in `sentence` that the question does not hold, best first. A run scores by
 * its new content words (up to four count), halved when no word of the question touches it (with
 * only small words between). Runs longer than eight words keep the eight nearest such a word. For
 * a question that asks what a thing is, a run naming it — right before it ("Tom's daughter Lily")
 * or after it and a copula ("Lily is Tom's daughter") — comes first.
 */
export const answerSpans = (sentence: string, question: string): Array<Span> => {
  const asked = new Set(contentWords(question))
  const tokens = tokenize(sentence, asked)
  const anchors = tokens.flatMap((t, i) => (t.kind === "asked" ? [i] : []))
  const runs: Array<[number, number]> = []
  let from = -1
  tokens.forEach((t, i) => {
    const inside = t.kind === "new" || t.kind === "stop"
    if (inside && from < 0) from = i
    if (!inside && from >= 0) {
      runs.push([from, i - 1])
      from = -1
    }
  })
  if (from >= 0) runs.push([from, tokens.length - 1])
  const distance = (i: number) =>
    anchors.length === 0 ? tokens.length : Math.min(...anchors.map((k) => Math.abs(k - i)))
  const defining = definitional.test(question)
  const naming = !defining && kindOf.test(question)
  const spans: Array<Span> = []
  for (let [a, b] of runs) {
    const before = tokens[a - 1]?.kind === "asked"
    const after = tokens[b + 1]?.kind === "asked"
    const afterCopula = before && copula.test(sentence.slice(tokens[a]!.start, tokens[a]!.end))
    const appositive = after && tokens[b]!.kind === "new"
    while (a <= b && tokens[a]!.kind === "stop") a++
    while (b >= a && tokens[b]!.kind === "stop") b--
    if (a > b) continue
    if (b - a + 1 > maxWords) {
      // Keep the end nearer the question's words.
      if (distance(a) <= distance(b)) b = a + maxWords - 1
      else a = b - maxWords + 1
      while (tokens[b]!.kind === "stop") b--
      while (tokens[a]!.kind === "stop") a++
    }
    const fresh = tokens.slice(a, b + 1).filter((t) => t.kind === "new").length
    const touching = before || after
    const names = (defining && (afterCopula || appositive)) || (naming && appositive)
    spans.push({
      text: sentence.slice(tokens[a]!.start, tokens[b]!.end),
      score: Math.min(fresh, 4) * (touching ? 1 : 0.5) + (names ? 4 : 0),
      names
    })
  }
  return spans.sort((x, y) => y.score - x.score)
}

const negation = /\b(?:not|never|no|nothing|neither|nor|none)\b|n['’]t\b/i

/** A state that ended or a plan that fell through ("Officially quit keto", "Toronto is off"). */
const ended =
  /\b(?:quit|quitting|stopped|gave up|no longer|(?:is|'s|’s|are|'re|’re) off|called off|cancel+ed|scrapped|broke up|split up|separated|divorced|passed away|died|put \p{L}+ to sleep|rainbow bridge|rehomed)\b/iu

/**
 * "Yes" or "No" for a yes/no question, from whether the sentence negates what the question does
 * not. A question whether something still holds ("Is Noor still doing keto?") is answered no by a
 * sentence saying it ended, negation or not.
 */
export const yesOrNo = (sentence: string, question: string) => {
  const denies = negation.test(sentence) || (stillWords.test(question) && ended.test(sentence))
  return denies !== negation.test(question) ? "No" : "Yes"
}
