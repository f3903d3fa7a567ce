import { type Draft, type Entity, makePlugin, type Plugin, pairSafeEnd } from "@umo/core"
import { Effect } from "effect"
import { compromise, its, readWink, tokenOffsets } from "./Engines.js"
import { windows } from "./Windows.js"
import { runNlp } from "./Workers.js"

interface Span {
  readonly start: number
  readonly end: number
  readonly type: string
}

// wink-nlp's entity types kept, and the names we give them.
const winkTypes: Readonly<Record<string, string>> = {
  DATE: "DATE",
  TIME: "TIME",
  DURATION: "DURATION",
  MONEY: "MONEY",
  PERCENT: "PERCENT",
  EMAIL: "EMAIL",
  URL: "URL",
  HASHTAG: "HASHTAG",
  MENTION: "MENTION"
}

// Words compromise leaves on the edges of a match ("on 5 May", "Paris.") that are not the name.
const leadingNoise =
  /^(?:(?:on|in|at|by|from|to|the|a|an|of|since|until|during|before|after|around|about|circa)\s+)+/i
const honorific = /^(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sir|Dame|Rev|Capt|Gen|Sen|Rep)\.?\s+)+/
// Lowercase particles inside names: "Leonardo da Vinci", "Ludwig van Beethoven".
const nameParticleTail = /^\s+(?:da|de|del|della|di|du|van|von|der|den|la|le|bin|ibn|al)\s+\p{Lu}[\p{L}'’-]*/u
// A date span that swallowed words before an inner preposition ("2.0 on 3 April 2024").
const innerDatePreposition = /^.*\s(?:on|in|at)\s+(?=\S)/i
const trailingNoise = /[\s.,;:!?'"’”)\]]+$/
const leadingPunctuation = /^[\s'"‘“([]+/

/** Shrinks a span to the name itself, dropping edge punctuation and leading function words. */
const trimSpan = (text: string, span: Span): Span | null => {
  // The engines' offsets may fall inside a surrogate pair (an emoji next to a name): never cut one.
  let start = pairSafeEnd(text, span.start)
  let end = pairSafeEnd(text, span.end)
  const lead = text.slice(start, end).match(leadingPunctuation)?.[0].length ?? 0
  start += lead
  const trail = text.slice(start, end).match(trailingNoise)?.[0].length ?? 0
  end -= trail
  // Keep a trailing period that belongs to an abbreviation such as "Inc." or "Dr.".
  if (trail > 0 && text[end] === "." && /\b(?:Inc|Corp|Ltd|Co|Jr|Sr|Dr|St|Mt)$/.test(text.slice(start, end)))
    end += 1
  if (span.type === "PERSON") {
    start += text.slice(start, end).match(honorific)?.[0].length ?? 0
    end += text.slice(end).match(nameParticleTail)?.[0].length ?? 0
  } else {
    start += text.slice(start, end).match(leadingNoise)?.[0].length ?? 0
  }
  if (span.type === "DATE") start += text.slice(start, end).match(innerDatePreposition)?.[0].length ?? 0
  // A TIME is a clock time ("10:30 am", "noon"), not a bare "night" or "evening".
  if (span.type === "TIME" && !/\d|noon|midnight/i.test(text.slice(start, end))) return null
  return end > start ? { start, end, type: span.type } : null
}

const winkSpans = (text: string): Array<Span> => {
  const doc = readWink(text)
  const offsets = tokenOffsets(text, doc)
  const details = doc.entities().out(its.detail) as unknown as Array<{ type: string }>
  const spans = doc.entities().out(its.span) as unknown as Array<[number, number]>
  return details.flatMap((detail, i) => {
    const type = winkTypes[detail.type]
    const [first, last] = spans[i] ?? [0, -1]
    const from = offsets[first]
    const to = offsets[last]
    return type && from && to ? [{ start: from.start, end: to.end, type }] : []
  })
}

const compromiseSpans = (text: string, timestamp: string): Array<Span> => {
  const doc = compromise(text)
  const spans = (view: { out: (format: "offset") => unknown }, type: string): Array<Span> =>
    (view.out("offset") as Array<{ offset: { start: number; length: number } }>).map(({ offset }) => ({
      start: offset.start,
      end: offset.start + offset.length,
      type
    }))
  return [
    ...spans(doc.people(), "PERSON"),
    ...spans(doc.organizations(), "ORGANIZATION"),
    ...spans(doc.places(), "LOCATION"),
    ...spans(doc.money(), "MONEY"),
    // compromise-dates resolves relative dates against a reference day; the memory's own timestamp
    // keeps extraction deterministic.
    ...spans(
      (doc as unknown as { dates: (o: object) => typeof doc }).dates({ today: timestamp.slice(0, 10) }),
      "DATE"
    )
  ]
}

/**
 * The spans of one window: overlapping spans keep the one found first by the engines' priority,
 * unless a later one of the same type contains it. Windows are a page at most, so the pairwise
 * overlap test stays cheap.
 */
const windowSpans = (text: string, timestamp: string): Array<Span> => {
  const candidates = [...winkSpans(text), ...compromiseSpans(text, timestamp)]
    .map((span) => trimSpan(text, span))
    .filter((span): span is Span => span !== null)
  let kept: Array<Span> = []
  for (const span of candidates) {
    const overlapping = kept.filter((k) => span.start < k.end && k.start < span.end)
    const widens = overlapping.every(
      (k) =>
        k.type === span.type &&
        span.start <= k.start &&
        k.end <= span.end &&
        span.end - span.start > k.end - k.start
    )
    if (overlapping.length === 0) kept.push(span)
    else if (widens) kept = [...kept.filter((k) => !overlapping.includes(k)), span]
  }
  return kept.sort((a, b) => a.start - b.start || b.end - a.end)
}

/**
 * Named entities with character offsets: people, organizations and places from compromise;
 * dates, times, money, percentages, e-mail addresses, URLs, hashtags and mentions from wink-nlp
 * (preferred where both find the same span), with compromise's dates as a fallback. Overlapping
 * spans keep the one found first by that priority, unless a later one of the same type contains it;
 * then duplicates (same type and text, case-insensitive) keep their first mention. A long text is
 * read a window (about a page, cut at a paragraph or sentence break) at a time, so the cost is
 * linear in its length.
 */
export const findEntities = (text: string, timestamp: string): ReadonlyArray<Entity> => {
  const seen = new Set<string>()
  return windows(text).flatMap((window) =>
    windowSpans(text.slice(window.start, window.end), timestamp).flatMap((span): Array<Entity> => {
      const start = window.start + span.start
      const end = window.start + span.end
      const entity = { text: text.slice(start, end), type: span.type, start, end }
      const key = `${entity.type}:${entity.text.toLowerCase()}`
      if (seen.has(key)) return []
      seen.add(key)
      return [entity]
    })
  )
}

/** The extract stage's entity extractor (in a worker thread for a long text). */
export const entities = (): Plugin =>
  makePlugin({
    name: "entities",
    version: "1.0.0",
    stage: "extract",
    run: (draft: Draft) =>
      Effect.map(runNlp("entities", findEntities, draft.content, draft.timestamp), (entities) => ({
        ...draft,
        entities
      }))
  })
