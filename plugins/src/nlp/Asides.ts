/**
 * Whether a memory is an aside to a question about how the writer's life stands: a question, a
 * wish or a condition, news of someone else, a visit. Such a memory may be true and recent and
 * still not be the answer: "My brother moved to Oslo", "Maybe Peru next year", "Back in Izmir for
 * the weekend" say nothing of where the writer lives now. What makes an aside is a closed class of
 * cues (question marks, modal and conditional words, someone else named first, travel words), so
 * it reads memories worded in any way — unlike the fact rules, which must know each statement.
 * @module
 */
import { future, hypothetical } from "./FactLexicon.js"
import { leadingSubject } from "./Facts.js"

/** The first sentence: what a memory opens with says whose news it is and how it is meant. */
const opening = (text: string) => text.trim().split(/(?<=[.!?])\s+|\n+|\s+[—–]\s+/)[0] ?? ""

const visit =
  /\b(?:visit(?:ed|ing|s)?|trip (?:to|in)|(?:long )?weekend (?:in|at)|(?:a |one |two |three )?(?:days?|weeks?|nights?) in|holiday in|vacation in|on holiday|for the weekend|flew (?:to|into)|(?:flying|fly|flights?|heading|jetting) (?:out |off |back )?(?:to|into)|back in \p{Lu}[\p{L}-]* for|(?:drove|driving|road ?trip) (?:up |down |over |out )?to|stopover|layover)\b/iu
const home = /\b(?:moved|move|relocat\w*|live|lives|living|home|flat|apartment|house|lease|keys|settled)\b/i

/** A child or grandchild born to the writer ("Our son Minh Khoa arrived last night"): their news too. */
const newChild =
  /^[\p{Extended_Pictographic}\s]*(?:my|our) (?:(?:baby|new|little|first|second|third|fourth|fifth) )?(?:son|daughter|baby|child|kid|boy|girl|grandson|granddaughter|grandchild|grandbaby)\b[^.!?]{0,40}?\b(?:arrived|was born|is born|is here|joined (?:us|the family))\b/iu

/**
 * Whether what someone else did in a sentence was done to the writer ("Boss moved me off the bar —
 * I'm the head roaster now", "The practice assigned me to Dr. Benali"): the writer's news.
 */
const doneToTheWriter = (sentence: string, lead: string | undefined) => {
  if (lead === undefined) return false
  const at = sentence.toLowerCase().indexOf(lead.toLowerCase())
  // "My sister told me she's moving": what they told is still their news.
  return (
    at >= 0 &&
    /^\s+(?!(?:\w+\s+)?(?:told|tells|telling|texted|texts|called|calls|asked|asks|messaged|emailed|rang|showed|reminded|warned|wrote|sent|invited|promised|says|said)\b)(?:[\p{L}'’-]+\s+){1,2}?(?:me|us)\b/iu.test(
      sentence.slice(at + lead.length)
    )
  )
}

/**
 * Whose news a sentence is when it is not the writer's: the words naming them, as it opens with
 * them ("My sister Ana just got engaged": "sister ana"; "Neighbour's spaniel had puppies":
 * "neighbour"), none for a pronoun ("She moved"); undefined when it is the writer's own.
 */
export const othersNews = (sentence: string): ReadonlyArray<string> | undefined => {
  const owner = /^[\p{Extended_Pictographic}\s]*(\p{L}[\p{L}-]*)['’]s\s/u.exec(sentence)?.[1]
  if (owner !== undefined && !/^(?:it|that|there|he|she|what|who|here)$/i.test(owner))
    return [owner.toLowerCase()]
  const { subject, lead } = leadingSubject(sentence)
  if (subject === "self" || newChild.test(sentence) || doneToTheWriter(sentence, lead)) return undefined
  return (lead ?? "")
    .toLowerCase()
    .split(/[^\p{L}'’-]+/u)
    .filter((w) => w.length > 1 && !/^(?:my|our|his|her|their|he|she|they)$/.test(w))
}

/**
 * Whether a memory (or a sentence) opens with someone else's news that a question does not name:
 * "My cousin Abdi is moving from Minneapolis" says nothing of where the writer lives, unless the
 * question asks about the cousin.
 */
export const othersNewsUnasked = (text: string, question: string): boolean => {
  const other = othersNews(opening(text))
  const asked = question.toLowerCase()
  return other !== undefined && !other.some((w) => asked.includes(w))
}

/**
 * Whether a memory opens with something still to come ("Semester exchange in Porto next spring,
 * confirmed!"): an answer to when it will be, no answer to how things stand now.
 */
export const opensAhead = (text: string): boolean => future.test(opening(text))

/** Whether the memory is a question, a wish or condition, someone else's news, or a visit. */
export const isAside = (text: string): boolean => {
  const first = opening(text)
  if (
    /\?\s*[\p{Extended_Pictographic}\s]*$/u.test(first) ||
    /\?\s*[\p{Extended_Pictographic}\s]*$/u.test(text.trim())
  )
    return true
  if (hypothetical.test(first)) return true
  if (othersNews(first) !== undefined) return true
  return visit.test(text) && !home.test(text)
}
