import {
  type AskedFacts,
  answersAsked,
  type FactFinderShape,
  isNewerAmong,
  type QuestionType,
  type RankingFacts,
  type StatedFact,
  valueBefore
} from "@umo/core"
import {
  asksAboutThePast,
  asksForTheFirst,
  contentWords,
  mentions,
  nowWords,
  questionType
} from "@umo/plugins/answer"
import { slotParts } from "./Facts.js"

/** A score just below another: what "ranks below it" means once scores are compared. */
const justBelow = (score: number) => score - Math.max(1e-9, Math.abs(score) * 1e-6)

/**
 * Whether two memories' facts disagree on a slot `about` admits: a slot each holds one value of,
 * with different values.
 */
const disagree = (
  a: ReadonlyArray<StatedFact>,
  b: ReadonlyArray<StatedFact>,
  about: (slot: string) => boolean
) =>
  a.some(
    (x) =>
      x.mode === "set" &&
      about(x.slot) &&
      b.some((y) => y.mode === "set" && y.slot === x.slot && y.value !== x.value)
  )

/**
 * Puts what is current first among scored memories: a superseded memory ranks below the memory
 * that superseded it, and of two current memories that state different values of one fact (an
 * update the capture did not dare to call a supersession: the older also says something else),
 * the older ranks below the newer. Only an older memory that outscored its newer one moves, to
 * just below it; the rest keep their scores. `outdated`: the memories a newer one replaced, either way.
 */
export const currentFirst = (
  scores: ReadonlyMap<string, number>,
  facts: ReadonlyArray<RankingFacts>,
  asked?: AskedFacts
): { readonly scores: Map<string, number>; readonly outdated: ReadonlySet<string> } => {
  // A memory out of date on one fact still says what else it says: for a question asking a kind of
  // fact, only a newer value of that kind outdates it ("I live in Buenos Aires with my two cats" still
  // answers "How many cats…?" after "Moved to Montevideo").
  const about = (slot: string) =>
    asked === undefined ||
    asked.attributes.length === 0 ||
    asked.attributes.some((a) => answersAsked(slotParts(slot).attribute, a))
  const ranked = new Map(scores)
  const outdated = new Set<string>()
  const byId = new Map(facts.map((f) => [f.umo_id, f]))
  const isNewer = isNewerAmong(facts)
  // Newest first, so a line of several versions settles from its newest down.
  const ordered = [...facts].sort((a, b) => (isNewer(a, b) ? -1 : 1))
  // Only memories that state a single-valued fact can disagree (most state none).
  const stating = facts.filter((f) => f.superseded_by === null && f.facts.some((x) => x.mode === "set"))
  for (const older of ordered) {
    const score = ranked.get(older.umo_id)
    if (score === undefined) continue
    const newer = [
      ...(older.superseded_by !== null && byId.has(older.superseded_by)
        ? [byId.get(older.superseded_by)!]
        : []),
      ...(older.superseded_by === null && older.facts.length > 0
        ? stating.filter((f) => disagree(f.facts, older.facts, about) && isNewer(f, older))
        : [])
    ]
    if (older.superseded_by !== null || newer.length > 0) outdated.add(older.umo_id)
    const ceiling = Math.min(...newer.map((n) => ranked.get(n.umo_id) ?? Number.POSITIVE_INFINITY))
    if (Number.isFinite(ceiling) && score >= ceiling) ranked.set(older.umo_id, justBelow(ceiling))
  }
  return { scores: ranked, outdated }
}

/** A score just above another. */
const justAbove = (score: number) => score + Math.max(1e-9, Math.abs(score) * 1e-6)

/**
 * The memory stating, by the fact rules, the value of an asked fact just before the one a question
 * names — or before the newest — among the memories `among` admits; undefined when none does.
 */
const statedBefore = (
  facts: ReadonlyArray<RankingFacts>,
  asked: AskedFacts,
  question: string,
  among: (id: string) => boolean
): (StatedFact & { readonly memory: RankingFacts }) | undefined => {
  const isNewer = isNewerAmong(facts)
  const lines = new Map<string, Array<StatedFact & { readonly memory: RankingFacts }>>()
  for (const memory of [...facts].sort((a, b) => (isNewer(a, b) ? 1 : -1)))
    for (const fact of memory.facts)
      if (among(memory.umo_id) && statesAsked(asked, [{ ...fact, mode: "set" }]))
        lines.set(fact.slot, [...(lines.get(fact.slot) ?? []), { ...fact, memory }])
  return [...lines.values()]
    .map((line) => valueBefore(line, (value) => mentions(question, value), asksForTheFirst(question)))
    .find((f) => f !== undefined)
}

/**
 * For a question about the past ("Where did she live before Lisbon?", "What was his old number?"):
 * the memory stating the value just before the one the question names — or before the newest —
 * goes first, the line of values `currentFirst` reads taken the other way. A question asking for
 * no kind of fact lifts each superseded memory just above the one that superseded it.
 */
export const pastFirst = (
  scores: ReadonlyMap<string, number>,
  facts: ReadonlyArray<RankingFacts>,
  asked: AskedFacts,
  question: string
): Map<string, number> => {
  const ranked = new Map(scores)
  const isNewer = isNewerAmong(facts)
  const previous = statedBefore(facts, asked, question, (id) => ranked.has(id))
  if (previous !== undefined) {
    ranked.set(previous.memory.umo_id, justAbove(Math.max(...ranked.values())))
    return ranked
  }
  const byId = new Map(facts.map((f) => [f.umo_id, f]))
  for (const older of [...facts].sort((a, b) => (isNewer(a, b) ? -1 : 1))) {
    const successor = older.superseded_by === null ? undefined : byId.get(older.superseded_by)
    const score = ranked.get(older.umo_id)
    const above = successor === undefined ? undefined : ranked.get(successor.umo_id)
    if (score !== undefined && above !== undefined && score <= above)
      ranked.set(older.umo_id, justAbove(above))
  }
  return ranked
}

/**
 * Whether a memory states a fact of a kind the query asks about, about the person it asks about:
 * the writer's own facts count for any person asked (in one user's memories, "I" is that user);
 * another person's only when the query names them.
 */
export const statesAsked = (asked: AskedFacts, facts: ReadonlyArray<StatedFact>): boolean =>
  asked.attributes.length > 0 &&
  facts.some((fact) => {
    if (fact.mode !== "set" && fact.mode !== "add") return false
    const { subject, attribute } = slotParts(fact.slot)
    return (
      asked.attributes.some((a) => answersAsked(attribute, a)) &&
      (subject === "self" || asked.subject === undefined || subject === asked.subject)
    )
  })

/** A candidate as the reordering below reads it: its record's text, time and entities. */
export interface Candidate {
  readonly content: string
  readonly timestamp: string
  readonly entities: ReadonlyArray<{ readonly type: string }>
}

/** Kinds of fact that hold one value at a time, which a question in the present asks the current one of. */
const singleValued =
  /^(?:residence|employer|role|partner|relationship|diet|email|phone|address|car|school|favorite:.+|count:.+)$/

/** Words that ask for the value a change led to: "rescheduled to", "her new number". */
const changedTo =
  /\b(?:(?:rescheduled|postponed|pushed back|brought forward|moved|changed|switched|updated) to|new (?:address|number|email|phone|job|role|title|position|employer|company|car|city|home|place|flat|apartment|house|partner|boyfriend|girlfriend|school|date|venue|favou?rite))\b/i

/**
 * Whether a question not about the past asks how things stand now: it says so ("now", "these
 * days", "still"), asks for what a change led to ("When was the exam rescheduled to?", "What's her
 * new number?"), or asks in the present for a fact that holds one value at a time ("Where does she
 * live?", "Who is he dating?", not "What does she like?"). `asked` is the question's asked facts.
 */
const asksHowThingsStand = (question: string, asked: AskedFacts): boolean =>
  nowWords.test(question) ||
  changedTo.test(question) ||
  (asked.attributes.some((a) => singleValued.test(a)) &&
    /^\s*(?:where|who|whom|what|which|how many|when)(?:\s+[\w'’-]+){0,2}?\s+(?:does|do|is|are|has|have|'s)\b/i.test(
      question
    ))

/**
 * What ranking reads of a question, read once: a search reads it while the query is embedded, so
 * that after the embedding only the candidates are left to read.
 */
export interface QuestionReading {
  readonly question: string
  readonly asked: AskedFacts
  readonly aboutThePast: boolean
  /**
   * About the past and for a kind of fact (where someone lived, their old number, a plan): it asks
   * how things stood. "Where did Sam go before lunch?" asks for none, about an event.
   */
  readonly aboutHowThingsStood: boolean
  /** Not about the past, and asks how things stand now (`asksHowThingsStand`). */
  readonly aboutNow: boolean
  readonly type: QuestionType
  /** What read the question, and reads the candidates for it. */
  readonly finder: FactFinderShape
}

export const readQuestion = (question: string, finder: FactFinderShape): QuestionReading => {
  const asked = finder.asked(question)
  const aboutThePast = asksAboutThePast(question)
  return {
    question,
    asked,
    aboutThePast,
    aboutHowThingsStood: aboutThePast && asked.attributes.length > 0,
    aboutNow: !aboutThePast && asksHowThingsStand(question, asked),
    type: questionType(question),
    finder
  }
}

const spelledNumber =
  /\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twenty|thirty|first|second|third|fourth|fifth|sixth)\b|#\d/i
const month =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i

/** Whether a memory holds the kind of thing a question of this type is answered with. */
const canAnswer = (
  type: QuestionType,
  candidate: Candidate,
  namesRelative: FactFinderShape["namesRelative"]
): boolean => {
  const types = new Set(candidate.entities.map((e) => e.type))
  // A capitalized word past the first of its sentence: a place, a person, a company.
  const named = /(?<![.!?]\s*|^)\s\p{Lu}[\p{L}'’-]+/u.test(candidate.content)
  switch (type) {
    case "location":
      return types.has("LOCATION") || named
    case "person":
      return types.has("PERSON") || types.has("ORGANIZATION") || named || namesRelative(candidate.content)
    case "quantity":
      return spelledNumber.test(candidate.content)
    case "temporal":
      return types.has("DATE") || month.test(candidate.content)
    default:
      return true
  }
}

/** The kind of entity a fact's value is, where it has one: a home is a place, an employer a company. */
const valueKinds: Readonly<Record<string, string>> = {
  residence: "LOCATION",
  employer: "ORGANIZATION",
  partner: "PERSON"
}

/**
 * Whether a candidate speaks of what a question asks: of its kind of fact (`speaksOf`: work words
 * for an employer, a lease or keys for a home), with an entity of the value's kind, or with a word
 * of the question's own — "Joined a community theatre group" is no answer to "Which company does
 * she work for now?", however near in meaning; "Takealot lanyard on" is.
 */
const ofTheKindAsked = ({
  question,
  asked,
  finder
}: QuestionReading): ((candidate: Candidate) => boolean) => {
  const speaks = finder.speaksOf(asked.attributes)
  const asking = new Set(
    contentWords(question.replace(new RegExp(nowWords.source, "gi"), " ").replace(/['’]s\b/g, ""))
  )
  if (asked.subject !== undefined) asking.delete(contentWords(asked.subject)[0] ?? "")
  return (c) =>
    speaks(c.content) ||
    c.entities.some((e) => asked.attributes.some((a) => valueKinds[a] === e.type)) ||
    contentWords(c.content).some((w) => asking.has(w))
}

/** How many of the best candidates are read for what is current. */
export const currencyDepth = 8

/**
 * How near in meaning a candidate must be to the question to answer it: more than half as near as
 * the nearest, and not nearly unrelated. On the update scenarios' development sets, memories about
 * what a question asks sat at cosine 0.15–0.43 (all-mpnet-base-v2) and memories about something
 * else of the same person at 0.07–0.15; the asides and the kind of answer sort out the overlap.
 */
const nearness = { floor: 0.12, ofBest: 0.55 }

/**
 * Among the best candidates for a question about how the writer's life stands, those that open
 * with someone else's news the question does not name ("My cousin Abdi is moving from
 * Minneapolis" for "Which city does Yusuf live in now?") go just below the writer's own, in their
 * order. When all of them are someone else's, the order stays.
 */
const ownNewsFirst = (
  ranked: ReadonlyArray<readonly [string, number]>,
  records: ReadonlyMap<string, Candidate>,
  { question, finder }: QuestionReading
): ReadonlyArray<readonly [string, number]> => {
  const top = ranked.slice(0, currencyDepth)
  const others = new Set(
    top
      .filter(([id]) => {
        const record = records.get(id)
        return record !== undefined && finder.othersNewsUnasked(record.content, question)
      })
      .map(([id]) => id)
  )
  const own = top.filter(([id]) => !others.has(id))
  if (others.size === 0 || own.length === 0) return ranked
  let floor = own.at(-1)![1]
  const moved = new Map<string, number>()
  for (const [id] of top)
    if (others.has(id)) {
      floor = justBelow(floor)
      moved.set(id, floor)
    }
  return ranked
    .map(([id, score]) => [id, moved.get(id) ?? score] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
}

/**
 * For a question about how things stand (now, or before), when the fact rules may not know how a
 * memory words it ("Nobody warned me Nairobi gets THIS cold" after "I live in Lagos"): among the
 * best candidates, those that answer the question — near it in meaning (`nearness`), no aside
 * (`isAside`: a question, a wish, someone else's news, a visit), holding the kind of thing asked
 * for (a place for "where", a number for "how many"…) —
 * are put in time order. The newest goes first for a question about now; for one about the past,
 * the one before the newest, or before the one holding a name the question gives ("before
 * Nairobi"). The others of them are outdated; `current` is the one put first for a question about
 * now. Lists, and yes-or-no questions that do not ask whether something still holds, keep their order.
 */
export const newestAnswerFirst = (
  scored: ReadonlyArray<readonly [string, number]>,
  records: ReadonlyMap<string, Candidate>,
  similarity: ReadonlyMap<string, number>,
  facts: ReadonlyArray<RankingFacts>,
  reading: QuestionReading
): {
  readonly ranked: ReadonlyArray<readonly [string, number]>
  readonly outdated: ReadonlySet<string>
  readonly current?: string
} => {
  const { question, asked, type, finder } = reading
  const past = reading.aboutHowThingsStood
  // A yes-or-no question is about how things stand only when it says so ("Is she still vegan?"):
  // then the newest memory on what it asks answers it, yes or no.
  const yesOrNoNow = type === "yes_no" && nowWords.test(question)
  if ((!past && !reading.aboutNow) || scored.length === 0)
    return { ranked: scored, outdated: new Set<string>() }
  // "Which bikes does he have now?" is about the writer's too: someone else's news goes below.
  const ranked = ownNewsFirst(scored, records, reading)
  const unchanged = { ranked, outdated: new Set<string>() }
  if (type === "list" || (type === "yes_no" && !yesOrNoNow)) return unchanged
  const stated = new Map(facts.map((f) => [f.umo_id, f.facts.filter((x) => x.mode !== "keep")]))
  const states = (id: string) => statesAsked(asked, stated.get(id) ?? [])
  /** Whether the rules read any fact (but a `keep`) in a memory. */
  const statesAny = (id: string) => (stated.get(id) ?? []).length > 0
  // What the fact rules read is known: a question about the past is answered by it when it can be
  // (`pastFirst`: they read a value before), and a memory whose facts are all of other kinds ("We
  // moved to Singapore" for "Where does he work?") or only end a value ("Nibbles died") is not the current value.
  const scoredIds = new Set(ranked.map(([id]) => id))
  if (past && statedBefore(facts, asked, question, (id) => scoredIds.has(id)) !== undefined) return unchanged
  const answersByFacts = (id: string) => {
    const own = stated.get(id) ?? []
    if (own.length === 0 || asked.attributes.length === 0) return true
    // "Does she still have her cat?" is answered by the memory that ends it, too.
    if (yesOrNoNow)
      return statesAsked(
        asked,
        own.map((f) => ({ ...f, mode: "set" as const }))
      )
    // "Where is her rabbit Pepparkaka now?" is answered by the memory ending what it names.
    if (own.some((f) => f.mode === "end" && f.value !== "*" && mentions(question, f.value))) return true
    return states(id) && own.some((f) => f.mode !== "end" && statesAsked(asked, [f]))
  }
  // What is still to come answers a question about a plan, not one about how things stand now
  // (unless the rules read a fact in it: "Started at Stripe, will be commuting by bike").
  const aboutAPlan = type === "temporal" || asked.attributes.some((a) => a.startsWith("plan:"))
  const ahead = (id: string, c: Candidate) =>
    !past && !aboutAPlan && !statesAny(id) && finder.opensAhead(c.content)
  const best = ranked[0]![1]
  const read = ranked.slice(0, currencyDepth)
  const near = (id: string) => similarity.get(id) ?? 0
  const cut = Math.max(nearness.floor, nearness.ofBest * Math.max(...read.map(([id]) => near(id))))
  const answering = read
    .flatMap(([id]) => {
      const c = records.get(id)
      return c === undefined ? [] : [{ id, c, time: Date.parse(c.timestamp) }]
    })
    .filter(
      ({ id, c }) =>
        // A memory the rules read stating what is asked needs no nearness: its words say so.
        (near(id) >= cut || states(id)) &&
        !finder.isAside(c.content) &&
        !ahead(id, c) &&
        canAnswer(type, c, finder.namesRelative) &&
        answersByFacts(id) &&
        // "I also like Ethiopian food", "another dog": one more, never the one current value.
        !/\b(?:also|too|as well|another|one more)\b/i.test(c.content)
    )
    .sort((a, b) => a.time - b.time)
  if (answering.length === 0) return unchanged
  const text = question.toLowerCase()
  const names = (c: Candidate) => c.content.match(/\p{Lu}[\p{L}'’-]+/gu) ?? []
  const anchor = past
    ? (answering
        .filter((a) => names(a.c).some((n) => n.length > 2 && text.includes(n.toLowerCase())))
        .at(-1) ?? answering.at(-1)!)
    : undefined
  // A memory stating no fact is read as the asked one's new value only when it speaks of the kind
  // asked (`ofTheKindAsked`). Only the newest is asked this: "Deckhand life: paint, rope, repeat"
  // was a job, for what came before.
  const ofKind = past ? undefined : ofTheKindAsked(reading)
  const target =
    ofKind === undefined
      ? answering.slice(0, answering.indexOf(anchor!)).at(-1)
      : answering.findLast((a) => statesAny(a.id) || ofKind(a.c))
  if (target === undefined) return unchanged
  const outdated = new Set(answering.filter((a) => a.time < target.time).map((a) => a.id))
  const lifted = ranked.map(([id, score]) => [id, id === target.id ? justAbove(best) : score] as const)
  return {
    ranked: [...lifted].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
    outdated,
    ...(past ? {} : { current: target.id })
  }
}
