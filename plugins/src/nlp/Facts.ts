/**
 * The fact finder: which facts a memory states about whom — where someone lives and works, their
 * address, role, school, car, partner, pets, favourites, diet, email and phone, counts and plans —
 * so that a newer memory stating a new value can supersede the older one (`decideUpdates` in
 * @umo/core), search can put what is current first, and answers can quote the value. No language
 * model: the statements of `FactRules` and `PersonalFactRules`, read clause by clause (and "and"-part
 * by part), with what each captured checked; contact details, addresses and counts are found by
 * their shape where the clause speaks of them.
 *
 * Precision comes first, because a false supersession hides a true memory:
 * - a question states nothing; a wish, condition or guess states nothing after it ("If I get the
 *   job I'll move to Paris"), though a fact before it stands ("My email is x@y.com if you need
 *   it"); a change in the future ("we will move to Berlin") is a plan, not yet a fact;
 * - a place, employer or name must be written with a capital, so "moved to the countryside" says
 *   nothing about where someone lives;
 * - whom a fact is about is the subject its rule reads, else the one its clause opens with ("My
 *   husband just got promoted"); a pronoun ("she moved") is nobody the finder can name, and its
 *   facts are left out;
 * - a memory that says more than its facts gets a `keep` fact, so it is never superseded, only
 *   ranked below a newer value of its facts; commentary on a fact is not more (`FactRemainder`).
 * @module
 */
import { type FoundFact, moreSaid } from "@umo/core"
import { asks, future, hypothetical, othersContact, relations, wishful } from "./FactLexicon.js"
import { OPENER, REL } from "./FactPatterns.js"
import { type More, statesMore } from "./FactRemainder.js"
import { factRules } from "./FactRules.js"
import { normalizeValue } from "./FactValues.js"
import { matchedValue, writtenValue } from "./MatchedValues.js"

/** A fact a text states (the FactFinder port's `FoundFact`). */
export type Fact = FoundFact

// Contractions spelled out, so a pattern reads "I am", "we have", "do not" whatever was typed.
const contractions: ReadonlyArray<readonly [RegExp, string]> = [
  [/[’‘]/g, "'"],
  [/\b(I|we|you|they|he|she|it|that|there)'(m|re|ve|d|ll)\b/gi, "$1 '$2"],
  [/ 'm\b/g, " am"],
  [/ 're\b/g, " are"],
  [/ 've\b/g, " have"],
  [/ 'll\b/g, " will"],
  [/ 'd\b/g, " would"],
  [/\b(he|she|it|that|there)'s\b/gi, "$1 is"],
  [/\bcan't\b/gi, "cannot"],
  [/\bwon't\b/gi, "will not"],
  [/\b(do|does|did|is|are|was|were|has|have|had|could|would|should)n't\b/gi, "$1 not"]
]

const spelledOut = (text: string) => contractions.reduce((t, [pattern, to]) => t.replace(pattern, to), text)

/**
 * Clauses: sentences, split again where a new clause starts (not at "and": "Ana and I got married";
 * not before "we named him": the name belongs to what came before it).
 */
export const clauses = (text: string): ReadonlyArray<string> =>
  spelledOut(text)
    .split(
      /(?<!\b(?:St|Mt|Ft|Dr|Mr|Mrs|Ms|Jr|Sr|Inc|Ltd|Co|Corp|vs|e\.g|i\.e|etc|approx|[A-Z])\.)(?<=[.!?;])\s+|\n+|\s+[—–]\s+|\s+-\s+|,\s+(?=(?:but|so|because|although|though|while|whereas|since|and then|which|who|I|we|my|our|hoping|planning|aiming|trying|wanting|thinking)\b(?!\s+(?:named|called)\b))|\s+(?:but|because|although|though|whereas)\s+/i
    )
    .map((c) => c.trim())
    .filter((c) => c.length > 0)

/** Who a captured subject is: the writer, a relation of theirs, or a name; undefined for nobody nameable. */
const notNames = new Set(
  "he she they it you this that there here who been being everyone someone somebody nobody people everybody one today yesterday tonight finally just so well now also then still guess update big good great oh wow ok okay yes no after since last next first this new our my his her their its sadly luckily honestly literally officially apparently turns back home day week".split(
    " "
  )
)
/**
 * Verbs a writer opens a clause with, leaving "I" out ("Left Rakuten and started at Mercari"): the
 * clause is the writer's, and the word is nobody's name.
 */
const writersVerbs = new Set(
  "left started joined moved got quit switched sold bought signed booked landed passed finished visited spent took made went came had".split(
    " "
  )
)
for (const verb of writersVerbs) notNames.add(verb)
const relationWords = new Set<string>(relations)

export const subjectOf = (captured: string | undefined): string | undefined => {
  if (captured === undefined) return "self"
  const words = captured.trim().split(/\s+/)
  const lower = captured.toLowerCase()
  // "I've started…", "I'm…": the writer, though capitalized like a name.
  if (lower === "i" || lower === "we" || / and i$/.test(lower) || /^i['’](?:ve|m|d|ll)$/.test(lower))
    return "self"
  if (/^(?:my|our) /.test(lower)) {
    const rest = words.slice(1)
    const last = rest.length > 1 ? rest.at(-1)! : undefined
    const capital = last !== undefined && /^\p{Lu}/u.test(last)
    // "my sister Ana": her name says who she is. A lowercase last word ("my husband got") is one
    // the case-blind pattern took for a name: the relation alone says who.
    const relation = (last === undefined ? rest : rest.slice(0, -1)).join(" ").toLowerCase()
    if (capital && relationWords.has(relation)) return last.toLowerCase()
    const whole = rest.join(" ").toLowerCase()
    if (relationWords.has(whole)) return whole
    return !capital && relationWords.has(relation) ? relation : undefined
  }
  const name = words[0]!
  if (!/^\p{Lu}/u.test(name) || notNames.has(name.toLowerCase()) || /ly$/i.test(name)) return undefined
  return name.toLowerCase()
}

/**
 * Whom a clause is about when a rule names no subject of its own: the relation or named person it
 * opens with ("My husband just got promoted"), nobody for a pronoun ("She moved"), else the writer.
 */
const LEAD = new RegExp(
  String.raw`${OPENER}(?:(?<rel>(?:my|our) (?:${REL})(?: \p{Lu}[\p{L}'’-]+)?|(?:${REL})(?=\s))|(?<pronoun>he|she|they|his|her|their)\b|(?:my|our) (?<other>[\p{L}-]+)\s+(?:just |still |also |now |recently |finally )*(?:lives|moved|works|bought|drives|started|joined|left|married|adopted|got|speaks|thinks|runs|teaches)\b|(?<name>\p{Lu}[\p{L}'’-]+)(?:['’]s)?\s+(?:just |also |finally |now |recently |has |had |himself |herself |themselves )*(?:got|moved|lives|works|bought|sold|started|joined|left|became|drives|adopted|married|switched|landed|took)\b)`,
  "iud"
)

/** The clause's subject, and where the name it opens with ends (a value may be that name instead). */
export const leadingSubject = (
  clause: string
): { readonly subject: string | undefined; readonly nameEnd: number; readonly lead?: string } => {
  const lead = LEAD.exec(clause)
  const groups = lead?.groups
  if (groups?.["pronoun"] !== undefined) return { subject: undefined, nameEnd: 0, lead: groups["pronoun"] }
  if (groups?.["rel"] !== undefined)
    return {
      subject: subjectOf(`my ${groups["rel"].replace(/^(?:my|our)\s+/i, "")}`),
      nameEnd: 0,
      lead: groups["rel"]
    }
  if (groups?.["other"] !== undefined)
    return { subject: groups["other"].toLowerCase(), nameEnd: 0, lead: groups["other"] }
  if (groups?.["name"] !== undefined)
    return {
      subject: subjectOf(groups["name"]) ?? "self",
      nameEnd: lead!.indices!.groups!["name"]![1],
      lead: groups["name"]
    }
  return { subject: "self", nameEnd: 0 }
}

/** The facts one clause states, and the clause with what they cover blanked out. */
const clauseFacts = (clause: string): { readonly facts: ReadonlyArray<Fact>; readonly rest: string } => {
  if (asks.test(clause)) return { facts: [], rest: "" }
  const planned = future.test(clause)
  const lead = leadingSubject(clause)
  const facts: Array<Fact> = []
  const covered = new Array<boolean>(clause.length).fill(false)
  for (const rule of factRules) {
    if (planned && rule.future !== true) continue
    const match = rule.pattern.exec(clause)
    if (match === null) continue
    // A wish or a condition governs what follows it ("If I get the job I'll move to Paris"), not
    // what came before ("My email is x@y.com if anyone wants it"). A condition of its use leaves a
    // contact detail the writer's: "if the courier needs me my number is 0161 555 0199".
    const contact = rule.value === "email" || rule.value === "phone"
    const unreal = contact ? wishful : hypothetical
    const upToValue = clause.slice(0, match.index + match[0].length)
    if (unreal.test(upToValue) || (contact && othersContact.test(upToValue))) continue
    const groups = match.groups ?? {}
    // A negated statement ("I do not live in X") is a rule of its own; others must not be negated.
    if (rule.mode !== "end" && rule.negated !== true && /\b(?:not|never|no longer)\b/i.test(match[0]))
      continue
    // "Green is my new favourite colour": the name a clause opens with may be the value, not whom it is about.
    const valueAt = match.indices!.groups?.["v"]
    const subject =
      rule.writers === true
        ? "self"
        : groups["subj"] !== undefined
          ? subjectOf(groups["subj"])
          : valueAt !== undefined && valueAt[0] < lead.nameEnd
            ? "self"
            : lead.subject
    if (subject === undefined) continue
    const attribute = typeof rule.attribute === "function" ? rule.attribute(groups) : rule.attribute
    const raw = matchedValue(rule.value, rule, groups)
    if (attribute === undefined || raw === undefined) continue
    if (rule.whole === true && raw !== groups["v"]?.trim().replace(/[.,;:!?)"'’]+$/, "")) continue
    const value = raw === "*" ? "*" : normalizeValue(raw)
    if (value.length === 0 || value.length > 200) continue
    facts.push({
      subject,
      attribute,
      value,
      written: writtenValue(rule.value, groups, raw, match[0]),
      mode: rule.mode
    })
    // What the fact covers: the match up to the end of the value it kept.
    const [from, to] = match.indices![0]!
    const captured = match.indices!.groups?.["v"]
    const end = captured !== undefined && raw !== "*" ? Math.min(to, captured[0] + raw.length) : to
    covered.fill(true, from, end)
  }
  // "My cat Mimi died": the clause names the value it ends, it does not add one.
  const ends = (f: Fact) =>
    facts.some(
      (e) => e.mode === "end" && e.subject === f.subject && e.attribute === f.attribute && e.value === f.value
    )
  return {
    facts: facts.filter((f) => f.mode !== "add" || !ends(f)),
    rest: [...clause].map((c, i) => (covered[i] ? " " : c)).join("")
  }
}

/**
 * A clause's "and"-parts that start a new statement of the same subject ("I live in Madrid and
 * work at Google"), or of their own ("I'm a vegetarian and I love Indian food": after a clause of
 * three words or more, so "Ana and I got married" stays whole).
 */
const continuations = (
  clause: string
): ReadonlyArray<{ readonly text: string; readonly segment: string }> => {
  const parts = clause.split(/\s+and\s+(?!then\b)/i)
  if (parts.length < 2) return []
  const opener = /^(?:I|we|(?:my|our) [\w-]+(?: \p{Lu}[\p{L}'’-]+)?|\p{Lu}[\p{L}'’-]+)(?=\s)/iu.exec(
    parts[0]!
  )?.[0]
  // "Left Rakuten and started at Mercari": the writer's verb, not a subject, opens the clause.
  const subject = opener !== undefined && writersVerbs.has(opener.toLowerCase()) ? undefined : opener
  const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length
  return parts.slice(1).flatMap((segment, i) => {
    if (/^(?:I|we)\b/i.test(segment))
      return words(parts.slice(0, i + 1).join(" and ")) >= 3 ? [{ text: segment, segment }] : []
    // "…black pork and my wife Jiyeon…": a part opening with a noun phrase has a subject of its own.
    const ownSubject = /^(?:my|our|the|a|an|his|her|their)\s/i.test(segment)
    return [{ text: subject === undefined || ownSubject ? segment : `${subject} ${segment}`, segment }]
  })
}

/**
 * A plan named further (`plan:trip:japan`) is also one more plan of its kind (`plan:trip`, value
 * `japan`), so a statement about the kind alone ("the trip is off") finds it and ends it.
 */
const withPlanKinds = (facts: ReadonlyArray<Fact>): ReadonlyArray<Fact> =>
  facts.flatMap((fact) => {
    const named = /^(plan:[^:]+):(.+)$/.exec(fact.attribute)
    if (named === null || (fact.mode !== "set" && fact.mode !== "end")) return [fact]
    const kind = { ...fact, attribute: named[1]!, value: named[2]!, written: named[2]! }
    return [fact, { ...kind, mode: fact.mode === "set" ? ("add" as const) : ("end" as const) }]
  })

/** Who "I" is in a text and what they say: "Ana: I moved to Lisbon" is Ana's; a text without a speaker, the writer's (`self`). */
export const speakerOf = (text: string): { readonly self: string; readonly body: string } => {
  const speaker = /^\s*(\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)?):\s+(.*)$/su.exec(text)
  return speaker === null
    ? { self: "self", body: text }
    : { self: speaker[1]!.toLowerCase(), body: speaker[2]! }
}

/** Longest text read for facts: a few paragraphs, what people tell an assistant about themselves. */
export const maxFactText = 2_000

/**
 * The facts a text states, each once. When some clause says more than its facts (see
 * `FactRemainder`), a `keep` fact says the memory holds more than its facts.
 */
export const statedFacts = (text: string): ReadonlyArray<Fact> => {
  // A document says more than facts: it is never superseded by them (and the rules need not read it).
  if (text.length > maxFactText) return []
  const { self, body } = speakerOf(text)
  const seen = new Map<string, Fact>()
  let more: More | undefined
  for (const clause of clauses(body)) {
    const whole = clauseFacts(clause)
    const parts = continuations(clause).map(({ text, segment }) => ({ ...clauseFacts(text), segment }))
    const found = [...whole.facts, ...parts.flatMap((part) => part.facts)]
    // What neither the clause whole nor one of its "and"-parts accounts for may say more.
    const rest = parts
      .filter((part) => part.facts.length > 0)
      .reduce((r, part) => r.replace(part.segment, " ".repeat(part.segment.length)), whole.rest)
    const saysMore = statesMore(rest, clause, found)
    if (saysMore === "named" || more === undefined) more = saysMore
    for (const fact of found) {
      const named = fact.subject === "self" ? { ...fact, subject: self } : fact
      const key = JSON.stringify([named.subject, named.attribute, named.value, named.mode])
      if (!seen.has(key)) seen.set(key, named)
    }
  }
  const facts = withPlanKinds([...seen.values()])
  return facts.length > 0 && more !== undefined
    ? [
        ...facts,
        { subject: self, attribute: "*", value: more === "said" ? moreSaid : "", written: "", mode: "keep" }
      ]
    : facts
}
