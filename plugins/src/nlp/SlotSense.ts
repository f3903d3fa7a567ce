/**
 * The slot sense: which single-valued fact a clause states about its writer when no rule of the
 * fact finder reads it — "The view from our new Utrecht apartment is unreal" states where they
 * live, "Takealot lanyard on, first standup done" where they work — by sentence embeddings (the
 * embedder the pipeline uses). A clause is compared with example sentences of each slot and of none
 * (`SlotPrototypes`); its nearest examples vote. Only clauses that could state a value of a slot the
 * rules left unread are embedded: most captures embed none, a few one or two.
 *
 * The sense says which slot, never which value: the value is what the clause names in that slot's
 * shape (a capitalized place or company, a car's make, a diet, an email address, a phone number, a
 * street address), so a clause with no such value states nothing. Precision comes first, as for the
 * rules (a false supersession hides a true memory): a question, a wish, a plan, a clause about
 * someone else (a relation named, a pronoun), one whose value is unclear or negated or ended near
 * it ("quit keto", "not in Leeds anymore") states nothing.
 *
 * It needs an embedder that places sentences by meaning; one that does not (a hash embedder, a
 * model too weak for the examples) fails the check `make` runs on the examples themselves — each
 * must be placed in its own slot by its neighbours — and the sense then states nothing.
 * @module
 */
import { cosineSimilarity } from "@umo/core"
import { Effect } from "effect"
import { isEnglishWord } from "./Engines.js"
import { asks, future, hypothetical, othersContact } from "./FactLexicon.js"
import { ADDRESS, DIET, EMAIL, HOME, PHONE, REL, ROLE, STUDY } from "./FactPatterns.js"
import { clauses, type Fact, leadingSubject, maxFactText, speakerOf, statedFacts } from "./Facts.js"
import { addressValue, dietName, isNameWord, normalizeValue, phoneValue, properValue } from "./FactValues.js"
import { PROTOTYPES } from "./SlotPrototypes.js"

/** Embeds texts to unit vectors, in order (the `Embedder` port's `embed`). */
export type Embed = (
  texts: ReadonlyArray<string>
) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, unknown>

/** Nearest examples that vote; least cosine similarity of the nearest for a clause to count. */
const neighbours = 5
const leastSimilarity = 0.35
/** Share of examples their neighbours must place in their own slot for the sense to be trusted. */
const leastSelfAgreement = 0.75

const pattern = (source: string) => new RegExp(source, "iu")
// A diet word naming a kind of food ("made vegan ice cream", "dairy-free desserts") says what was
// eaten or made, not how the writer eats.
const dietPattern = pattern(
  String.raw`\b(?<v>${DIET})\b(?!\s+(?:ice cream|desserts?|cakes?|cookies?|brownies?|muffins?|recipes?|dishes?|meals?|food|options?|restaurants?|burgers?|pizzas?|pasta|bread|cheese|milk|menu|snacks?|treats?|versions?|alternatives?|cooking|baking|places?|spots?|caf[eé]s?|bakery|products?|chocolate|sushi|tacos?|curry|soup|salad)\b)`
)
const emailPattern = pattern(EMAIL)
const phonePattern = pattern(PHONE)
const addressPattern = new RegExp(ADDRESS, "u")
// Someone else's news: a relation named ("my sister", "his wife") or a third-person pronoun.
const aboutOthers = pattern(
  String.raw`\b(?:(?:my|our|his|her|their)\s+(?:[\p{L}-]+\s+){0,2}?(?:${REL})|he|she|they|him|his|her|them|their)\b`
)
// A value that ends or ended ("quit keto", "sold the Polo", "my old number") is not the one now.
const ending =
  /\b(?:not|never|no longer|no more|nobody|none|quit|quitting|stopped|left|leaving|sold|gave up|ditched|dropped|former|old|used to|ex|anymore|cancel+ed|off)\b/i

/**
 * Whether a word of ending stands near the value — among the five words before it or the four
 * after — as in "quit keto" or "the Polo is sold". Further off it is about something else:
 * "Vegan for 3 years now and honestly never felt better".
 */
const endedNear = (clause: string, written: string) => {
  const at = clause.toLowerCase().indexOf(written.toLowerCase())
  if (at < 0) return ending.test(clause)
  const before = clause.slice(0, at).split(/\s+/).slice(-6).join(" ")
  const after = clause
    .slice(at + written.length)
    .split(/\s+/)
    .slice(0, 5)
    .join(" ")
  return ending.test(before) || ending.test(after)
}
// "We're moving to Bristol in the spring": a change in the making is a plan, not yet a value.
const planned =
  /\b(?:am|are|is|'m|'re|'s)\s+(?:\w+\s+)?(?:moving|relocating|starting|joining|leaving|switching|changing|going)\b/i

/** A value as the clause writes it, and as compared. */
interface Value {
  readonly written: string
  readonly value: string
}
const valueWritten = (written: string | undefined): Value | undefined =>
  written === undefined || written.length === 0 ? undefined : { written, value: normalizeValue(written) }

/** A name a clause writes, and the word before it ("" for the clause's first). */
interface Name {
  readonly written: string
  readonly before: string
  /** The word after it ("" at the clause's end). */
  readonly after: string
}

// After a name that opens a clause, a verb says the name is whom it is about ("Kuro has a roommate").
const actsNext =
  /^(?:is|was|has|had|are|were|got|gets|went|goes|met|meets|said|says|loves|hates|turned|arrived|came|comes|left|moved|lives|works|started|joined|just|finally|also|still|and|&|will|would|can|could|did|does|do)$/i

/**
 * The names a clause writes: capitalized words past its first (whose capital says nothing), and
 * words English does not have ("Takealot", "iFood": wink's lexicon), its first too unless a verb
 * follows it. A word in capitals is shouting ("THIS cold") unless a preposition puts a place or
 * company before it ("at ASU").
 */
const names = (clause: string): ReadonlyArray<Name> => {
  const words = [...clause.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.&-]*/gu)]
  const found: Array<Name> = []
  let next = 0
  for (let i = 0; i < words.length; i++) {
    const word = words[i]![0].replace(/['’]s$|[.'’]+$/u, "")
    const before = i === 0 ? "" : words[i - 1]![0].toLowerCase()
    if (i < next || word.length < 2) continue
    if (/^\p{Lu}{2,}$/u.test(word) && !/^(?:at|for|with|in|to|from|into)$/.test(before)) continue
    const foreign = /\p{Lu}/u.test(word) && !isEnglishWord(word)
    if (!foreign && !(i > 0 && isNameWord(word))) continue
    const name = properValue(
      clause.slice(words[i]!.index).replace(/^\p{Ll}/u, (c) => c.toUpperCase()),
      4
    )
    if (name === undefined) continue
    next = i + name.split(/\s+/).length
    if (i === 0 && actsNext.test(words[next]?.[0] ?? "")) continue
    found.push({
      written: clause.slice(words[i]!.index, words[i]!.index + name.length),
      before,
      after: words[next]?.[0].toLowerCase() ?? ""
    })
  }
  return found
}

/**
 * The name a slot's value is: the one after a word the slot takes before it ("live in X", "work at
 * X", "the Mazda CX-5"). A name alone in a clause is not enough: "Tesla museum sunrise" names a car
 * maker, and states nothing.
 */
const nameAfter =
  (takes: RegExp, named: (name: Name) => boolean = () => false) =>
  (clause: string): Value | undefined => {
    const taken = [
      ...new Set(
        names(clause)
          .filter((n) => takes.test(n.before) || named(n))
          .map((n) => n.written)
      )
    ]
    return taken.length === 1 ? valueWritten(taken[0]) : undefined
  }

const home = new RegExp(`^(?:${HOME})$`)

// A title or a course is not a company: "'Analytics Team Lead'", "my PhD".
const notAnEmployer = pattern(String.raw`\b(?:${ROLE}|${STUDY}|level|year|class)\b`)
// A clause about a course is about a school, whatever its words of work ("my PhD supervisor").
const studies = pattern(
  String.raw`\b(?:${STUDY}|msc|bsc|ma|ba|program|course|syllabus|exams?|uni|university|college|school|professor|prof|supervisor)\b`
)
const employerName = nameAfter(/^(?:at|for|with|joined)$/)

/** How each slot's value is read from a clause that states it. */
const valueFinders: Readonly<Record<string, (clause: string) => Value | undefined>> = {
  // "our new Utrecht apartment": a home named by its place.
  residence: nameAfter(
    /^(?:in|to|into)$/,
    (n) => /^(?:my|our|new|the)$/.test(n.before) && home.test(n.after)
  ),
  employer: (clause) => {
    const name = employerName(clause)
    return name === undefined || notAnEmployer.test(name.written) || studies.test(clause) ? undefined : name
  },
  school: nameAfter(/^(?:at|in|to)$/),
  car: nameAfter(/^(?:a|an|the|my|our|new|drive|driving|bought)$/),
  diet: (clause) => {
    const diet = dietPattern.exec(clause)?.groups?.["v"]
    return diet === undefined ? undefined : valueWritten(dietName(diet))
  },
  email: (clause) => valueWritten(emailPattern.exec(clause)?.groups?.["v"]),
  phone: (clause) => {
    const phone = phonePattern.exec(clause)?.groups?.["v"]?.trim()
    if (phone === undefined) return undefined
    const value = phoneValue(phone)
    return value === undefined ? undefined : { written: phone, value }
  },
  address: (clause) => {
    const address = addressPattern.exec(clause)?.groups?.["v"]
    return address === undefined ? undefined : valueWritten(addressValue(address))
  }
}

/** Whether a clause may state a fact of its writer's at all, whatever its slot. */
const aboutTheWriter = (clause: string) =>
  !asks.test(clause) &&
  !hypothetical.test(clause) &&
  !future.test(clause) &&
  !planned.test(clause) &&
  !aboutOthers.test(clause) &&
  !othersContact.test(clause) &&
  leadingSubject(clause).subject === "self"

interface Example {
  readonly slot: string
  readonly vector: ReadonlyArray<number>
}

/** The slot a vector's nearest examples vote for (each by its similarity), and the nearest one's similarity. */
const vote = (examples: ReadonlyArray<Example>, vector: ReadonlyArray<number>) => {
  const nearest = examples
    .map((e) => ({ slot: e.slot, similarity: cosineSimilarity(e.vector, vector) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, neighbours)
  const votes = new Map<string, number>()
  for (const n of nearest) votes.set(n.slot, (votes.get(n.slot) ?? 0) + n.similarity)
  const [slot] = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]!
  return { slot, similarity: nearest[0]?.similarity ?? 0 }
}

/** The facts a text states that its rules did not read (`found`), by the slot sense. */
export interface SlotSense {
  readonly facts: (text: string, found: ReadonlyArray<Fact>) => Effect.Effect<ReadonlyArray<Fact>>
}

/** The sense for an embedder that fails the check on the examples: it states nothing. */
export const silent: SlotSense = { facts: () => Effect.succeed([]) }

/**
 * Embeds the examples and checks that the embedder places them by meaning (see the module note);
 * the sense, or `silent` when the check fails.
 */
export const make = (embed: Embed): Effect.Effect<SlotSense, unknown> =>
  Effect.gen(function* () {
    const labelled = Object.entries(PROTOTYPES).flatMap(([slot, texts]) =>
      texts.map((text) => ({ slot, text }))
    )
    const vectors = yield* embed(labelled.map((e) => e.text))
    const examples: ReadonlyArray<Example> = labelled.map((e, i) => ({ slot: e.slot, vector: vectors[i]! }))
    const agreeing = examples.filter(
      (e, i) =>
        vote(
          examples.filter((_, j) => j !== i),
          e.vector
        ).slot === e.slot
    ).length
    if (agreeing < leastSelfAgreement * examples.length) return silent

    const facts = (text: string, found: ReadonlyArray<Fact>) =>
      Effect.gen(function* () {
        if (text.length > maxFactText) return []
        const { self, body } = speakerOf(text)
        const read = new Set(found.filter((f) => f.subject === self).map((f) => f.attribute))
        // Only clauses that could state a value of a slot the rules left unread are embedded.
        const candidates = clauses(body).filter(
          (clause) =>
            aboutTheWriter(clause) &&
            // A clause a rule read is the rules' (they know "I love Vienna" is a liking).
            !statedFacts(clause).some((f) => f.mode !== "keep") &&
            // A value ended near it ("quit keto") is never stated: such a clause is not embedded.
            Object.entries(valueFinders).some(([slot, find]) => {
              const value = read.has(slot) ? undefined : find(clause)
              return value !== undefined && !endedNear(clause, value.written)
            })
        )
        if (candidates.length === 0) return []
        const sensed = yield* embed(candidates).pipe(Effect.orElseSucceed(() => []))
        const stated = new Map<string, Fact>()
        sensed.forEach((vector, i) => {
          const { slot, similarity } = vote(examples, vector)
          const find = valueFinders[slot]
          if (find === undefined || read.has(slot) || similarity < leastSimilarity) return
          const value = find(candidates[i]!)
          if (
            value !== undefined &&
            value.value.length > 0 &&
            !endedNear(candidates[i]!, value.written) &&
            !stated.has(slot)
          )
            stated.set(slot, { subject: self, attribute: slot, ...value, mode: "set" })
        })
        return [...stated.values()]
      })
    return { facts }
  })
