/**
 * How the fact finder reads values: a capitalized name as written, a lowercase phrase up to the
 * word that ends it, and the normal form values are compared in.
 * @module
 */
import { dietNames } from "./FactLexicon.js"

const abbreviations = /^(?:St|Mt|Ft|Dr|Jr|Sr|Co|Inc|Ltd|Corp|Bros|Ave|Blvd|Rd|U\.S|U\.K)\.$/

// Words that may join a capitalized name: "Rio de Janeiro", "Bank of America", "Procter & Gamble".
const connectors = new Set([
  "de",
  "da",
  "do",
  "dos",
  "del",
  "la",
  "le",
  "of",
  "the",
  "and",
  "&",
  "am",
  "upon",
  "on",
  "du",
  "des",
  "van",
  "von",
  "y",
  "e",
  "al",
  "el"
])
const notProper = new Set(
  "I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Today Tomorrow Yesterday Tonight Christmas Easter Thanksgiving Dr Mr Mrs Ms Prof He She They It We You This That There Here Who".split(
    " "
  )
)

/** Whether a word is written as a name: capitalized, and not a day, month, title or pronoun. */
export const isNameWord = (word: string): boolean =>
  /^\p{Lu}/u.test(word) && !notProper.has(word.replace(/['’]s$/, ""))

/** A capitalized name as written: its leading capitalized words and the connectors between them. */
export const properValue = (text: string, maxWords: number): string | undefined => {
  // "the Bay Area", "the Netherlands": a leading article before a capital is not part of the name.
  const words = text
    .trim()
    .replace(/^the\s+(?=\p{Lu})/u, "")
    .split(/\s+/)
  const kept: Array<string> = []
  for (const raw of words) {
    // An abbreviation keeps its period: "St. Mary's", "Mt. Hood".
    const word = abbreviations.test(raw) ? raw : raw.replace(/[.,;:!?)"'’]+$/, "")
    const capital = /^[\p{Lu}\p{N}]/u.test(word)
    if (
      kept.length === 0
        ? !capital || notProper.has(word)
        : !(capital && !notProper.has(word)) && !connectors.has(word)
    )
      break
    kept.push(word)
    if (word !== raw || kept.length >= maxWords) break
  }
  while (kept.length > 0 && connectors.has(kept.at(-1)!)) kept.pop()
  return kept.length === 0 ? undefined : kept.join(" ")
}

// What ends a lowercase value: a function word, a time word, an aside.
const phraseStops = new Set(
  "and but or because with since for at in on now lately again too though these those this last every today yesterday tonight when which who that to from as so these days anymore a lot so much right then instead than like more very really too also still yet ever".split(
    " "
  )
)
const leadingFiller =
  /^(?:a|an|the|some|really|very|so|totally|absolutely|pretty|quite|just|now|hands down|definitely|honestly|easily|by far|officially|probably|literally|undoubtedly|obviously|still)\s+/i
const possessive =
  /^(?:my|our|his|her|their|its|your|it|this|that|them|him|being|to|how|the way|what|when|where|going|getting)\b/i

/** A lowercase value: its first words, up to one that ends it. */
export const phraseValue = (text: string, maxWords: number): string | undefined => {
  let rest = text.trim().replace(/[.!?;,:)"]+.*$/s, "")
  while (leadingFiller.test(rest)) rest = rest.replace(leadingFiller, "")
  // "my mom's mushroom risotto": someone's own dish is a value; "my family" is not.
  rest = rest.replace(/^(?:my|our)\s+(?=\p{L}+['’]s\s+\p{L})/iu, "")
  if (possessive.test(rest)) return undefined
  // "the light here": what it names is the place another fact names, not a value of its own.
  if (/^(?:\S+\s+){0,5}?(?:here|there)\b/i.test(rest)) return undefined
  const kept: Array<string> = []
  for (const word of rest.split(/\s+/)) {
    if (kept.length > 0 && phraseStops.has(word.toLowerCase())) break
    kept.push(word)
    if (kept.length >= maxWords) break
  }
  const value = kept.join(" ").trim()
  return value.length === 0 ? undefined : value
}

/** A phone number as compared: its digits, with a leading "+" kept; undefined under 7 digits. */
export const phoneValue = (written: string): string | undefined => {
  const digits = written.replace(/\D/g, "")
  return digits.length < 7 ? undefined : `${written.trim().startsWith("+") ? "+" : ""}${digits}`
}

/**
 * A street address as written, without the sentence going on after the street's name (lowercase
 * words: "…Heol y Nant today") or trailing punctuation; undefined when nothing is left.
 */
export const addressValue = (written: string): string | undefined =>
  written
    .trim()
    .replace(/(?:\s+(?!(?:de|del|la|y|of|the|das|dos)\b)\p{Ll}[\p{L}'’.-]*)+$/u, "")
    .replace(/[.,;:!?)]+$/, "") || undefined

/** A diet as compared: the name of the diet a word says ("meat-free" is vegetarian). */
export const dietName = (word: string): string => {
  const diet = word.toLowerCase()
  return dietNames[diet] ?? diet
}

/** A value as compared: lower case, single spaces, no article, ordinal or trailing punctuation. */
export const normalizeValue = (value: string): string =>
  value
    .toLowerCase()
    .normalize("NFC")
    .replace(/^(?:the|a|an)\s+/, "")
    .replace(/(\d)(?:st|nd|rd|th)\b/g, "$1")
    .replace(/[.,;:!?'"]+$/g, "")
    .replace(/\s+/g, " ")
    .trim()
