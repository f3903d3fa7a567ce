/**
 * A question that names the kind of place it asks for — "Which city does she live in now?" — is
 * answered with a place of that kind. Where someone lives is often written finer than that ("our
 * new flat in Kilimani", a neighbourhood, beside "Nairobi gets this cold"): the fact's value is
 * then not the city, and the city the memory names is the answer. Which names are cities and
 * countries is compromise's gazetteer (its `#City` and `#Country` tags).
 * @module
 */
import { compromise } from "../nlp/Engines.js"

const kinds: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:city|town)\b/i, "#City"],
  [/\bcountry\b/i, "#Country"]
]

/**
 * The place of the kind the question asks for that `content` names, when `value` (a place the
 * content names, the fact's) is not of that kind and exactly one such place is named — leaving
 * out a place left ("from Minneapolis"): a move from one city to a place the gazetteer does not
 * know must not answer with the city left. Otherwise undefined: the value stands.
 */
export const placeOfAskedKind = (question: string, content: string, value: string): string | undefined => {
  const tag = kinds.find(([asks]) => asks.test(question))?.[1]
  if (tag === undefined) return undefined
  const doc = compromise(content)
  const named = (doc.match(tag).out("array") as Array<string>).map((p) => p.replace(/[.,;:!?]+$/, ""))
  const lower = value.toLowerCase()
  if (named.some((p) => p.toLowerCase() === lower || lower.includes(p.toLowerCase()))) return undefined
  const left = new Set(
    (doc.match(`(from|leaving|left) ${tag}`).match(tag).out("array") as Array<string>).map((p) =>
      p.replace(/[.,;:!?]+$/, "").toLowerCase()
    )
  )
  const candidates = [...new Set(named.filter((p) => !left.has(p.toLowerCase())))]
  return candidates.length === 1 ? candidates[0] : undefined
}
