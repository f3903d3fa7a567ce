/**
 * The pieces the fact rules (`FactRules`, `PersonalFactRules`) are written with: what a rule is,
 * the parts of a clause a pattern names (its opener, subject, a name, a phrase, a date, an email,
 * a phone number, a street address), and how a rule's match names its attribute.
 *
 * Groups a pattern may capture: `subj` (who: "I", "my sister", "Ana"; none means the clause's own
 * subject, else the writer), `v` (the value), `kind` (a pet's kind), `rel` (a partner word), `n`
 * and `thing` (a count), `what` (a favourite's category), `ev` and `dest` (a planned event and
 * where it goes).
 * @module
 */
import type { FactMode } from "@umo/core"
import {
  carNames,
  countedThings,
  diets,
  numbers,
  partnerWords,
  petKinds,
  plannedEvents,
  relations,
  roleHeads
} from "./FactLexicon.js"
import { properValue } from "./FactValues.js"

/** How a rule's value is read from what it captured. */
export type ValueKind =
  | "proper"
  | "name"
  | "phrase"
  | "role"
  | "date"
  | "email"
  | "phone"
  | "address"
  | "number"
  | "fixed"

type Groups = Readonly<Record<string, string | undefined>>

export interface FactRule {
  /** The attribute, or how to name it from the match (a favourite's category, a planned event). */
  readonly attribute: string | ((groups: Groups) => string | undefined)
  readonly mode: FactMode
  readonly value: ValueKind
  /** The value of a `fixed` rule (a status: "single", "married"). */
  readonly fixed?: string | ((groups: Groups) => string | undefined)
  readonly pattern: RegExp
  /** A future or planned change states this fact too (plans themselves). */
  readonly future?: boolean
  /** The clause must start with the subject or the verb (after interjections), not hold it anywhere. */
  readonly anchored?: boolean
  /** The value must be all the pattern captured (a lookahead after it checks what follows the name). */
  readonly whole?: boolean
  /** The statement is a negation ("not moving to Bristol after all"): it may hold "not". */
  readonly negated?: boolean
  /** The fact is the writer's whoever the clause opens with ("my husband is a chef": the writer is married). */
  readonly writers?: boolean
}

export const alternation = (words: ReadonlyArray<string>) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|")

export const REL = alternation(relations)
export const ROLE = alternation(roleHeads)
export const KIND = alternation(petKinds)
export const THING = alternation(Object.keys(countedThings))
export const EVENT = alternation(Object.keys(plannedEvents))
export const CAR = alternation(carNames)
export const NUM = `\\d+|${alternation(Object.keys(numbers))}`
/** A count as written before what it counts: not "a" or "an", which say one more, not how many. */
export const COUNT = `\\d+|${alternation(Object.keys(numbers).filter((w) => !["a", "an", "no", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "first"].includes(w)))}`
/** An ordinal: "third", "5th". */
export const ORDINAL = String.raw`\d+(?:st|nd|rd|th)|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth`
export const DIET = alternation(diets)
/** What one studies in, or for. */
export const STUDY = String.raw`(?:semester|degree|phd|ph\.d\.|doctorate|master'?s|masters|bachelor'?s|mba|credential|diploma|programme|major|studies|lectures?|thesis|coursework)`
export const PARTNER = alternation(Object.keys(partnerWords))

/**
 * What may open a clause before its subject or verb: interjections, time words, emoji. One
 * character or word a step, a dozen steps at most: no two ways to read the same characters, so a
 * clause of 50,000 emoji fails at once instead of backtracking without end.
 */
export const OPENER = String.raw`^(?:(?:just|finally|officially|so|well|ok|okay|update|news|big news|guess what|yay|woo+|today|yesterday|tonight|this (?:week|month|morning)|last (?:week|month|night)|recently|oh|and|also|lol|omg|wow|btw|fyi|quick update|good news|heads up|as of (?:today|now|this week)|after \w+ years|after all this time|now|anyway|(?:I )?(?:guess|think|suppose|reckon|mean)|turns out|it turns out|as of now|sorry|update time|life update|personal news)[\s,:!.-]*|[\p{Extended_Pictographic}\p{Emoji_Modifier}\u200D\uFE0F\s,:!.-]){0,12}`
/** Who a clause is about (contractions are spelled out before matching: "I am", "we have"). */
export const SUBJ = String.raw`(?<subj>I|we|(?:my|our) (?:${REL})(?: \p{Lu}[\p{L}'’-]+)?|my \w+ and I|(?!(?:been|being|got|getting|just|finally|still|also|now|so|then|really)\b)\p{Lu}[\p{L}'’-]+(?: and I)?)`
/** Adverbs between subject and verb. */
const ADV = String.raw`(?:(?:just|now|finally|officially|recently|currently|still|also|actually|already|basically|then|have|'ve|has|'s|had|am|'m|are|'re|is)\s+)*`
/** The start of a clause about someone: opener, subject (the writer when none), adverbs. */
export const START = String.raw`${OPENER}(?:${SUBJ}\s+)?${ADV}`
/** A capitalized name, place or organization, checked and trimmed after the match. */
export const PROPER = String.raw`(?<v>[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.&-]*(?:\s+[\p{L}\p{M}\p{N}'’.&-]+){0,5})`
/** A name followed by what a lookahead checks: the shortest capture first. */
export const PROPER_LAZY = String.raw`(?<v>[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.&-]*(?:\s+[\p{L}\p{M}\p{N}'’.&-]+){0,5}?)`
/** A capitalized name that is not the value ("moved from Dubai to Toronto"). */
export const NAME = String.raw`\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+(?:de|da|do|of|the|y|\p{Lu}[\p{L}\p{M}'’.-]*)){0,4}`
/** A lowercase phrase, cut at the first word that ends it. */
export const PHRASE = String.raw`(?<v>[\p{L}\p{N}][\p{L}\p{M}\p{N}'’&-]*(?:\s+[\p{L}\p{M}\p{N}'’&-]+){0,5})`
const MONTH =
  "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
const DAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
/** A date or a time of a plan, as written. */
export const DATE = String.raw`(?<v>(?:the )?(?:(?:early|mid|late|the end of|end of|the beginning of) )?(?:(?:${MONTH})\.?(?: \d{1,2}(?:st|nd|rd|th)?)?(?:,? \d{4})?|\d{1,2}(?:st|nd|rd|th)?(?: of)? (?:${MONTH})(?:,? \d{4})?|(?:next |this )?(?:${DAY})|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|(?:next|this) (?:week|month|year|spring|summer|fall|autumn|winter)|tomorrow|(?:the )?\d{1,2}(?:st|nd|rd|th)|spring|summer|fall|autumn|winter)(?: \d{4})?)\b`
export const EMAIL = String.raw`(?<![\w.+-])(?<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)`
export const PHONE = String.raw`(?<v>\+?\(?\d[\d\s().-]{6,}\d)`
/**
 * A street address, as written in either order: a number before the street ("22 Cathedral Road",
 * "Flat 4, 22 Cathedral Road", "9 Heol y Nant") or after it ("Calle Mayor 14, 3ºB").
 */
export const ADDRESS = String.raw`(?<v>(?:(?:flat|apt\.?|apartment|unit|suite) \w{1,4},? )?\d{1,5}[a-z]?,? \p{Lu}[\p{L}'’.-]*(?: (?:\p{Lu}[\p{L}'’.-]*|de|del|la|y|of|the)){0,4}|(?:calle|avenida|av\.|rua|rue|via|viale|piazza|plaza|carrer|paseo|strada|avenue|boulevard)(?: (?:\p{Lu}[\p{L}'’.-]*|de|del|la|y|of|the|das|dos)){1,5} \d{1,5}[a-z]?(?:,? \d{1,3}º?\s?[a-z]?)?)`
/** Ways of saying "where we live" after a home's name or address. */
export const HOME = "home|place|apartment|flat|house|condo|loft|studio|digs|pad|townhouse|bungalow|cottage"

/** A rule from its pattern's source: case-insensitive, Unicode, with the indices of its groups. */
export const rule = (r: Omit<FactRule, "pattern"> & { readonly pattern: string }): FactRule => ({
  ...r,
  // `d`: the indices of what each group captured, so the finder knows how much of a clause a fact covers.
  pattern: new RegExp(r.pattern, "iud")
})

/** The status a relationship word says. */
export const statusOf = (word: string | undefined): string | undefined => {
  const w = (word ?? "").toLowerCase()
  if (w === "hitched") return "married"
  if (w === "seeing someone" || w === "dating") return "dating"
  if (w === "in a relationship" || w === "official" || w === "made it official") return "together"
  if (w === "broke up" || w === "split up") return "single"
  return w === "" ? undefined : w
}

// Time words a category may end with: "my favourite band now" asks for the band.
const categoryTime =
  /\s+(?:now|these days|lately|right now|at the moment|at present|nowadays|of all time|ever|forever|currently|still)$/

/**
 * A favourite's kind as one name for its synonyms: a favourite band, artist or singer is one slot
 * (a new favourite artist replaces the band), "thing to eat" is food.
 */
export const favouriteKind = (category: string): string => {
  const kind = category
    .toLowerCase()
    .trim()
    .replace(categoryTime, "")
    .replace(/colour/g, "color")
    .replace(/s$/, "")
  if (/^(?:band|artist|singer|musician|group|rapper|music artist)$/.test(kind)) return "artist"
  if (/^(?:thing to (?:eat|cook)|(?:thing|food) to eat|meal|dish|food)$/.test(kind)) return "food"
  if (/^(?:movie|film)$/.test(kind)) return "film"
  if (/^(?:show|tv show|series)$/.test(kind)) return "show"
  if (/^(?:writer|author)$/.test(kind)) return "author"
  return kind
}

/** `favorite:<what>`, its category in the singular ("favourite colours" is favorite:color). */
export const favourite = (what: string | undefined) => {
  const category = favouriteKind(what ?? "")
  // "New all-time favourite unlocked: …": a word done, not a kind of thing, follows "favourite".
  const done = /\w{2,}[^e\W]ed$/.test(category)
  return category === "" || done || category.split(" ").length > 3 ? undefined : `favorite:${category}`
}

/** `count:<thing>`, the thing as its slot names it. */
export const count = (thing: string | undefined) => {
  const slot = countedThings[(thing ?? "").toLowerCase()]
  return slot === undefined ? undefined : `count:${slot}`
}

/** A noun in the singular, by its ending: "munros" → "munro", "countries" → "country". */
const singular = (noun: string) =>
  noun
    .replace(/ies$/, "y")
    .replace(/(?<=(?:s|x|z|ch|sh))es$/, "")
    .replace(/(?<!s)s$/, "")

/**
 * `count:<thing>` of anything counted: the slot the lexicon gives it, or else the thing itself in
 * the singular ("Munro count: 12", "How many Munros…?" are both count:munro).
 */
export const countOfAny = (thing: string | undefined): string | undefined => {
  const word = (thing ?? "").toLowerCase()
  return word.length < 3 ? undefined : (count(word) ?? `count:${singular(word)}`)
}

// Words before a planned event that say nothing about which one it is.
const vagueQualifiers = new Set(
  "big upcoming next planned long-awaited annual little whole entire new first last this that our my the so and but then now is was got just also still when if because after before actual real".split(
    " "
  )
)

/**
 * `plan:<event>` and, when it has one, what sets it apart: its destination or kind (two trips to
 * two places, a dentist's and a doctor's appointment, are two plans).
 */
export const plan = (event: string | undefined, qualifier: string | undefined) => {
  const name = plannedEvents[(event ?? "").toLowerCase()]
  if (name === undefined) return undefined
  // A name as written ("Japan", "New York"), or else the word just before the event ("dentist").
  const which =
    qualifier === undefined ? undefined : (properValue(qualifier, 3) ?? qualifier.split(/\s+/).at(-1))
  // "Physio says no marathon this year": a plan denied is no plan.
  if (which !== undefined && /^(?:no|not|never)$/i.test(which)) return undefined
  return which === undefined || vagueQualifiers.has(which.toLowerCase())
    ? `plan:${name}`
    : `plan:${name}:${which.toLowerCase()}`
}

/** The value of a number word or numeral. */
export const numberValue = (text: string): number | undefined => {
  const t = text.toLowerCase().trim()
  return /^\d+$/.test(t) ? Number(t) : numbers[t]
}
