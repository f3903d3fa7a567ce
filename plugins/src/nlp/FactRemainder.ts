/**
 * What a clause says besides its facts, and whether that is something more: a statement that
 * stays true when the facts change, so a newer value of them does not make the memory out of date
 * (it gets a `keep` fact). Commentary on a fact goes with it: "I've lived in Madrid for six years
 * and I still love the light here" is out of date once its writer lives in Lisbon, the light
 * being Madrid's. What counts as more:
 *
 * - a name the facts do not hold, past the clause's first word ("…with my two cats, Mate and Dulce");
 * - a statement of the writer's own that is not a feeling, a past event, or about what the fact
 *   names ("here", "there", "it"): "…and I'm pregnant", not "…and I still love it here";
 * - a statement about one of the writer's people ("…, my sister lives nearby").
 * @module
 */
import { relations } from "./FactLexicon.js"
import { isNameWord } from "./FactValues.js"

/** A fact as far as this needs it: what the text writes for its value. */
interface Written {
  readonly written: string
}

/** Words that point back at what the fact names. */
const pointsBack = /\b(?:here|there|it|this|that|this place|the place|the city|the job|the new one)\b/i
/** Verbs and adjectives of feeling: commentary, not a statement of its own. */
const feelings = new Set(
  "love loves loving loved like likes liked hate hated miss missed missing enjoy enjoyed adore adored can cannot feel feeling felt think guess hope wish happy sad excited thrilled nervous tired exhausted proud grateful gutted devastated glad sorry sure obsessed relieved scared terrified stoked blessed lucky ready done over".split(
    " "
  )
)
const auxiliaries = new Set(
  "am is are was were be been being have has had do does did will would still also just now really so very finally already actually honestly totally officially not never".split(
    " "
  )
)
const irregularPast = new Set(
  "met went got had made did saw took came left found bought sold said told thought knew began ran spent gave brought kept lost won wrote set put cut hit let shut paid sent built heard held led sat stood taught chose drove ate drank flew grew rode sang spoke threw woke".split(
    " "
  )
)
const relationWords = new Set<string>(relations)

const words = (text: string) => text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []

/**
 * What more than its facts a clause says: a name they do not hold (`named`), a statement of its own
 * (`said`), or nothing (undefined).
 */
export type More = "named" | "said"

/** What `rest` — the clause with its facts blanked out — says more than them, if anything. */
export const statesMore = (rest: string, clause: string, facts: ReadonlyArray<Written>): More | undefined => {
  const restWords = words(rest)
  if (restWords.length === 0) return undefined
  const first = words(clause)[0]
  const written = facts.map((f) => f.written.toLowerCase())
  // A name right after "in", "near", "at" says where the fact's place or employer is ("in
  // Bangalore", "near the Meadows"): a detail of the fact, not a statement of its own.
  const located = new Set(
    [
      ...rest.matchAll(/\b(?:in|near|at|around|by|outside|off|from|on)\s+(?:the\s+)?(\p{Lu}[\p{L}'’-]*)/gu)
    ].map((m) => m[1])
  )
  const named = restWords.some(
    (w, i) =>
      !(i === 0 && w === first && rest.trimStart().startsWith(w)) &&
      isNameWord(w) &&
      // A letter ("45°C") or a word in capitals ("he is A LOT": shouting) names nothing.
      w.length > 1 &&
      !/^\p{Lu}+$/u.test(w) &&
      !located.has(w) &&
      !written.some((value) => value.includes(w.toLowerCase()))
  )
  if (named) return "named"
  return rest.split(/\s*(?:[,;:]|\band\b|\bbut\b|\bso\b)\s*/i).some(statesOwn) ? "said" : undefined
}

/** Whether one piece of what is left is a statement of its own (see the module's rules). */
const statesOwn = (piece: string): boolean => {
  if (pointsBack.test(piece)) return false
  const lower = words(piece).map((w) => w.toLowerCase())
  const subject = lower[0]
  // "my sister lives nearby": a statement about one of the writer's people.
  if ((subject === "my" || subject === "our") && relationWords.has(lower[1] ?? "")) return true
  if (subject !== "i" && subject !== "we") return false
  const verb = lower.slice(1).find((w) => !auxiliaries.has(w))
  return verb !== undefined && !feelings.has(verb) && !irregularPast.has(verb) && !/[a-z]ed$/.test(verb)
}
