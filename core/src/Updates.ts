/**
 * Updates: when a newer memory makes an older one out of date. A memory states facts, each in a
 * slot — who (the scope and the subject) and what (where they live, their employer, a pet…) —
 * found by the fact finder (`@umo/plugins/nlp`'s `statedFacts`); the stores keep them so the
 * memories stating a slot are found at once. This module is the rule that decides, written once;
 * a store applies it under the account's write lock, so concurrent captures decide in turn.
 *
 * A false supersession hides a true memory, so the rule asks much before it supersedes: the newer
 * memory must replace *every* fact the older one states, or state it again (an older memory that
 * also says something still true stays current), and only a new value of a single-valued fact (`set`) or the end of a
 * value (`end`) replaces one. Additive facts (`add`: a second dog, another hobby) replace nothing.
 * @module
 */

/**
 * - `set`: the slot holds one value at a time (a home city, an employer), and this is it now.
 * - `add`: one more value beside others (a pet, a hobby); it replaces nothing.
 * - `end`: the value stopped being true ("Rex passed away", "I left Acme"); `*` ends any value.
 * - `keep`: the memory says more than its facts (a sentence that states none): nothing replaces
 *   it, so the memory is not superseded by facts (search still ranks it below a newer value) —
 *   unless it names nothing more and a newer memory ends its value by name (see `outdates`).
 */
export type FactMode = "set" | "add" | "end" | "keep"

/** A fact a memory states: its slot (scope, subject and attribute, as one key), value and mode. */
export interface StatedFact {
  readonly slot: string
  readonly value: string
  readonly mode: FactMode
}

/** A current memory and the facts it states. */
export interface FactHolder {
  readonly umo_id: string
  /** When its content was written (ISO 8601): what "newer" means. */
  readonly timestamp: string
  readonly facts: ReadonlyArray<StatedFact>
}

/** Any value of a slot, for `end`. */
export const anyValue = "*"

/**
 * A `keep` fact's value when what its memory says besides its facts names nothing they do not hold
 * ("…still my favourite person", "…and I'm pregnant"); a `keep` whose memory names more ("…with my
 * two cats, Mate and Dulce") has the value "".
 */
export const moreSaid = "said"

/** The slots a new memory's facts make it look for holders of (not its `keep` marker). */
export const slotsToMatch = (facts: ReadonlyArray<StatedFact>): ReadonlyArray<string> => [
  ...new Set(facts.filter((f) => f.mode !== "keep").map((f) => f.slot))
]

/**
 * Whether a slot holds another as one of its kinds: a plan named by its kind alone (`plan:trip`)
 * holds the plans of that kind named further (`plan:trip:japan`), so "the trip is off" ends them.
 */
const holdsKind = (slot: string, other: string) => other.startsWith(`${slot}:`)

/** Whether a stated attribute answers an asked one: itself, or a kind of it (`plan:trip` asks for `plan:trip:japan` too). */
export const answersAsked = (stated: string, asked: string): boolean =>
  stated === asked || holdsKind(asked, stated)

const replaces = (newer: StatedFact, older: StatedFact): boolean =>
  older.mode !== "end" &&
  older.mode !== "keep" &&
  ((newer.slot === older.slot &&
    ((newer.mode === "set" && older.mode === "set" && newer.value !== older.value) ||
      (newer.mode === "end" && (newer.value === older.value || newer.value === anyValue)))) ||
    (newer.mode === "end" && newer.value === anyValue && holdsKind(newer.slot, older.slot)))

/** The newer memory states the same value again ("Camila and I are engaged" after "Camila and I made it official"). */
const restates = (newer: StatedFact, older: StatedFact): boolean =>
  newer.slot === older.slot &&
  newer.mode === older.mode &&
  (older.mode === "set" || older.mode === "add") &&
  newer.value === older.value

/** The newer fact ends the very value the older one states, naming it ("Diego and I broke up" after "together with Diego"). */
const endsNamed = (newer: StatedFact, older: StatedFact): boolean =>
  newer.mode === "end" &&
  newer.value !== anyValue &&
  (older.mode === "set" || older.mode === "add") &&
  newer.slot === older.slot &&
  newer.value === older.value

/**
 * Whether the newer facts make the older memory out of date: they replace at least one of its
 * facts and replace or state again every other (so nothing it says is still its own to tell). What
 * the older says beyond its facts (`keep`) keeps it current, unless it names nothing more
 * (`moreSaid`) and the newer memory ends, by name, the value it was written about: "Diego and I
 * have been together 4 years today, still my favourite person" is out of date once "Diego and I
 * broke up"; "I live in Buenos Aires with my two cats, Mate and Dulce" is not, once "Moved from
 * Buenos Aires to Montevideo" — the cats are still there.
 */
export const outdates = (newer: ReadonlyArray<StatedFact>, older: ReadonlyArray<StatedFact>): boolean => {
  const endedByName = older.some((o) => newer.some((n) => endsNamed(n, o)))
  return (
    older.length > 0 &&
    older.every(
      (o) =>
        newer.some((n) => replaces(n, o) || restates(n, o)) ||
        (o.mode === "keep" && o.value === moreSaid && endedByName)
    ) &&
    older.some((o) => newer.some((n) => replaces(n, o)))
  )
}

/** What orders memories in time: when their content was written, and their id. */
export type Dated = Pick<FactHolder, "umo_id" | "timestamp">

/** Orders memories by content time, then id (ids are time-ordered: capture order breaks ties). */
export const isNewer = (a: Dated, b: Dated): boolean =>
  newerAt(Date.parse(a.timestamp), a.umo_id, Date.parse(b.timestamp), b.umo_id)

const newerAt = (ta: number, a: string, tb: number, b: string) => (ta !== tb ? ta > tb : a > b)

/**
 * `isNewer` for comparing many of `holders` pairwise (a ranking compares hundreds): each one's
 * time parsed once.
 */
export const isNewerAmong = (
  holders: ReadonlyArray<Pick<FactHolder, "umo_id" | "timestamp">>
): ((a: FactHolder, b: FactHolder) => boolean) => {
  const times = new Map(holders.map((h) => [h.umo_id, Date.parse(h.timestamp)]))
  const time = (h: FactHolder) => times.get(h.umo_id) ?? Date.parse(h.timestamp)
  return (a, b) => newerAt(time(a), a.umo_id, time(b), b.umo_id)
}

/** What a new memory does to the current memories that share a slot with it. */
export interface UpdateDecision {
  /** The holders the new memory supersedes: older, every fact of theirs replaced. */
  readonly supersedes: ReadonlyArray<string>
  /**
   * A newer holder that supersedes the new memory instead (its content is older: an import of
   * history, a back-dated capture), or null.
   */
  readonly supersededBy: string | null
}

/** Decides, for a new memory, which current memories of its slots it supersedes, or which supersedes it. */
export const decideUpdates = (incoming: FactHolder, holders: ReadonlyArray<FactHolder>): UpdateDecision => {
  const others = holders.filter((h) => h.umo_id !== incoming.umo_id)
  const newer = others
    .filter((h) => isNewer(h, incoming) && outdates(h.facts, incoming.facts))
    .sort((a, b) => (isNewer(a, b) ? -1 : 1))
  if (newer.length > 0) return { supersedes: [], supersededBy: newer[0]!.umo_id }
  return {
    supersedes: others
      .filter((h) => isNewer(incoming, h) && outdates(incoming.facts, h.facts))
      .map((h) => h.umo_id),
    supersededBy: null
  }
}

/**
 * The fact holding the value before, in one slot's facts oldest first — what a question about the
 * past asks for: the first value when it asks for the first of several (`first`: "the original date"); the
 * value before the one the question names (`named`); else, when the latest fact ended a value ("we
 * broke up"), that value; else the value before the newest.
 */
export const valueBefore = <T extends { readonly value: string; readonly mode: FactMode }>(
  line: ReadonlyArray<T>,
  named: (value: string) => boolean,
  first = false
): T | undefined => {
  const values = line.filter((f) => f.mode === "set")
  // The first of several values; of one value there is no first to tell apart.
  if (first && values.some((f) => f.value !== values[0]!.value)) return values[0]
  const earlier = (anchor: T) =>
    values
      .slice(0, values.lastIndexOf(anchor))
      .filter((f) => f.value !== anchor.value)
      .at(-1)
  const mentioned = values.filter((f) => named(f.value)).at(-1)
  if (mentioned !== undefined) return earlier(mentioned)
  const last = line.at(-1)
  if (last?.mode === "end") return values.at(-1)
  const newest = values.at(-1)
  return newest === undefined ? undefined : earlier(newest)
}
