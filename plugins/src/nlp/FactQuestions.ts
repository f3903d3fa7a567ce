/**
 * What a question asks about, in the fact finder's terms: the attributes (`residence`,
 * `employer`, `favorite:color`, `plan:trip`, …) and whom. Search ranks the memories that state
 * such a fact about that person first (`Ranking`'s fact signal); a question that names none of
 * them asks for none.
 * @module
 */
import type { AskedFacts } from "@umo/core"
import { countedThings, petKinds, plannedEvents } from "./FactLexicon.js"
import { countOfAny, favouriteKind } from "./FactPatterns.js"

/** What a question asks (the FactFinder port's `AskedFacts`). */
export type { AskedFacts }

/** What "how many" counts that is no thing someone has or did: a time, a frequency, people at large. */
const uncounted =
  /^(?:times?|years?|months?|weeks?|days?|hours?|minutes?|seconds?|more|of|people|others|other|different|total|in|do|does|did|is|are|was|were|has|have|had|can|will|would)$/i

const pets = new RegExp(`\\b(?:pets?|animals?|${petKinds.join("|")})s?\\b`, "i")

const askedAttributes: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "residence",
    /\b(?:where\b.*\b(?:live|lives|living|reside|based|moved|move|relocat\w*|home)|(?:city|town|country|place|neighbou?rhood)\b.*\b(?:live|lives|living|home|based|moved)|home ?town|hometown|currently based)\b/i
  ],
  [
    "employer",
    /\b(?:where\b.*\b(?:work|works|working|employed|job)|(?:company|employer|firm|organi[sz]ation|startup)\b|who\b.*\b(?:work|works|working) for|work(?:s|ing)? (?:at|for)\b)/i
  ],
  [
    "role",
    /\b(?:job title|title|role|rank|position|profession|occupation|what does \S+(?: \S+)? do(?: for work| for a living)?(?: now| these days| currently| nowadays)?\??$|what .+ job|do for (?:a )?living|do for work|promot\w+|what (?:kind of )?work)/i
  ],
  [
    "partner",
    /\b(?:partner|boyfriend|girlfriend|husband|wife|spouse|fianc\w*|dating|married|engaged|seeing|relationship|single|together with|divorced)\b/i
  ],
  ["relationship", /\b(?:relationship|married|engaged|single|dating|divorced|separated)\b/i],
  ["pet", pets],
  ["diet", /\b(?:diet|vegan|vegetarian|pescatarian|eat meat|eats meat|keto|plant-based)\b/i],
  ["email", /\be-?mail\b/i],
  ["phone", /\b(?:phone|number|cell|mobile|call|text|reach)\b/i],
  ["address", /\baddress\b/i],
  ["car", /\b(?:car|cars|drive|drives|driving|vehicle)\b/i],
  [
    "school",
    /\b(?:university|college|school|uni|stud(?:y|ies|ying)|degree|credential|phd|master'?s|programme|program)\b/i
  ],
  ["likes", /\b(?:like|likes|enjoy|enjoys|love|loves|hobb(?:y|ies)|into|interests?|passion|fan of)\b/i]
]

/** The attributes and subject a question asks about. */
export const askedFacts = (question: string): AskedFacts => {
  const attributes = askedAttributes
    .filter(([, pattern]) => pattern.test(question))
    .map(([attribute]) => attribute)
  const favourite =
    /\bfavou?rite\s+([\w -]{2,30}?)(?:\s+(?:now|these days|currently|right now))?\??$|\bfavou?rite\s+(\w+)/i.exec(
      question
    )
  // "Which band did he call his favourite?": the kind is the noun the question opens with.
  const kindFirst = /^\s*(?:what|which)\s+([a-z]+)\b.*\bfavou?rites?\b\W*$/i.exec(question)
  if (favourite === null && kindFirst !== null) attributes.push(`favorite:${favouriteKind(kindFirst[1]!)}`)
  if (favourite !== null) attributes.push(`favorite:${favouriteKind(favourite[1] ?? favourite[2]!)}`)
  const counted = /\bhow many\s+(\w+)(?:\s+(\w+))?/i.exec(question)
  if (counted !== null) {
    // "how many kids", "how many rescue cats": the counted thing is one of the next two words.
    const slot = [counted[1], counted[2]]
      .map((w) => countedThings[(w ?? "").toLowerCase()])
      .find((s) => s !== undefined)
    if (slot !== undefined) attributes.push(`count:${slot}`)
    // A thing no lexicon counts ("How many Munros…?") is asked as itself, not a time or how often.
    else {
      const asked = uncounted.test(counted[1]!) ? undefined : countOfAny(counted[1])
      if (asked !== undefined) attributes.push(asked)
    }
    if (/\b(?:family|people)\b/i.test(question)) attributes.push("count:family")
  }
  for (const [word, event] of Object.entries(plannedEvents))
    if (new RegExp(`\\b${word}s?\\b`, "i").test(question)) attributes.push(`plan:${event}`)
  // "When is she getting married?" asks the wedding's date.
  if (/^\s*when\b.*\b(?:get(?:ting)? married|marry|marrying|tie the knot|tying the knot)\b/i.test(question))
    attributes.push("plan:wedding")
  // "Who is she dating?" asks for the person, not where the relationship stands.
  const person = /^\s*(?:who|whom|whose)\b/i.test(question)
  return {
    attributes: [...new Set(attributes)].filter((a) => !(person && a === "relationship")),
    subject: subjectAsked(question)
  }
}

// Capitalized words a question opens with or that are not people.
const notNamed = new Set(
  "what where when who whom whose which how why is are was were do does did has have had can could would will should my our i the a an".split(
    " "
  )
)

/** Whom a question is about: `self` for I/my, the first name it mentions, or undefined. */
const subjectAsked = (question: string): string | undefined => {
  if (/\b(?:I|my|me|we|our)\b/.test(question)) return "self"
  const names = question.match(/\b\p{Lu}[\p{L}'’-]+/gu) ?? []
  const name = names.map((n) => n.replace(/['’]s$/, "")).find((n) => !notNamed.has(n.toLowerCase()))
  return name?.toLowerCase()
}
