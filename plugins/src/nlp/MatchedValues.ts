/**
 * The value a fact rule's match holds: what is compared once normalized ("iFood" → `ifood`,
 * "three" → `3`), and what the text writes, which answers quote ("iFood", "three marathons").
 * @module
 */
import { numberValue, type ValueKind } from "./FactPatterns.js"
import type { FactRule } from "./FactRules.js"
import { addressValue, phoneValue, phraseValue, properValue } from "./FactValues.js"

// Words in front of a job title that say how good it is, not which it is.
const evaluative =
  /^(?:(?:great|good|amazing|awesome|proud|happy|new|full-time|part-time|real|official|actual|fully qualified|qualified|licensed|certified)\s+)+/i

/** The value of a rule's match, normalized, or undefined when what it captured is not one. */
export const matchedValue = (
  kind: ValueKind,
  rule: FactRule,
  groups: Readonly<Record<string, string | undefined>>
) => {
  const v = groups["v"]
  switch (kind) {
    case "fixed":
      return typeof rule.fixed === "function" ? rule.fixed(groups) : rule.fixed
    case "proper":
      return v === undefined ? undefined : properValue(v, 5)
    case "name":
      return v === undefined ? (groups["kind"] ?? undefined) : properValue(v, 3)
    case "phrase":
      return v === undefined ? undefined : phraseValue(v, 5)
    case "role":
      return v?.replace(evaluative, "")
    case "address":
      return v === undefined ? undefined : addressValue(v)
    case "number": {
      const n = numberValue(groups["n"] ?? "")
      return n === undefined ? undefined : String(n)
    }
    case "phone":
      return v === undefined ? undefined : phoneValue(v)
    default:
      return v
  }
}

/** A value as the text writes it: a count's word ("three"), a phone number's spacing, else what was kept. */
export const writtenValue = (
  kind: ValueKind,
  groups: Readonly<Record<string, string | undefined>>,
  raw: string,
  matched: string
) =>
  kind === "number"
    ? /^(?:\d+|[a-z]+)$/i.test(groups["n"] ?? "") && !/(?:st|nd|rd|th)$/i.test(groups["n"] ?? "")
      ? countWritten(groups["n"]!, groups["thing"], matched)
      : raw
    : kind === "phone"
      ? (groups["v"]?.trim() ?? raw)
      : raw === "*"
        ? ""
        : raw

/** A count with what it counts when the text writes them in that order ("2 marathons"), else the number. */
const countWritten = (n: string, thing: string | undefined, matched: string) => {
  if (thing === undefined) return n
  const at = matched.indexOf(thing)
  return at > matched.indexOf(n) && at - matched.indexOf(n) - n.length <= 1 ? `${n} ${thing}` : n
}
