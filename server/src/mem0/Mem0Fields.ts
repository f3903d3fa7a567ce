/**
 * The rules a Mem0 request's fields pass before the Memory service is called: which fields a call
 * uses, which are the clients' harmless defaults (accepted and ignored), and which name a Mem0
 * feature UMO does not have (refused with a 422 naming the field, never a wrong success). Also
 * Mem0's ways of writing a time, read into UMO's RFC 3339.
 * @module
 */
import { InvalidRequest, parseTimestamp } from "@umo/memory"
import { Data, Result } from "effect"

/** A request the Mem0 face refuses, with its status and the `{detail}` its clients show. */
export class Mem0Refused extends Data.TaggedError("Mem0Refused")<{
  readonly status: number
  readonly detail: string
}> {}

/**
 * A refusal's text with UMO's names of fields put back as the Mem0 caller wrote them (`names`:
 * UMO's word, or a pattern, to the caller's), so the `{detail}` names the field the caller sent.
 */
export const inMem0Words = (detail: string, names: ReadonlyArray<readonly [RegExp, string]>) =>
  names.reduce((text, [umo, mem0]) => text.replace(umo, mem0), detail)

/** `inMem0Words` over a refused call of the Memory service (other errors pass unchanged). */
export const refusalInMem0Words =
  (names: ReadonlyArray<readonly [RegExp, string]>) =>
  <E>(error: E): E | InvalidRequest =>
    error instanceof InvalidRequest ? new InvalidRequest({ detail: inMem0Words(error.detail, names) }) : error

/** A Mem0 feature UMO does not have: 422 naming the field. */
export const unsupported = (field: string, why?: string) =>
  new Mem0Refused({
    status: 422,
    detail: `not supported by UMO's Mem0 API: ${field}${why === undefined ? "" : ` (${why})`}`
  })

/** A field with a value UMO cannot take: 422 naming the field and the rule, worded as UMO's own API words it. */
export const invalid = (field: string, rule: string, part = "request body") =>
  new Mem0Refused({ status: 422, detail: `invalid ${part}: ${field}: ${rule}` })

/**
 * What a field does: `use` (the call reads it), `ignore` (a client default that changes nothing
 * here), or a refusal that lets through only the values that ask for nothing UMO lacks (`null`,
 * `false`, …).
 */
export type FieldRule =
  | "use"
  | "ignore"
  | { readonly harmless: (value: unknown) => boolean; readonly why: string }

const absent = (value: unknown) => value === null || value === undefined
const absentOrFalse = (value: unknown) => absent(value) || value === false

/** Refused unless absent (or null). */
export const refused = (why: string): FieldRule => ({ harmless: absent, why })
/** Refused unless absent or false: a switch for a feature UMO does not have. */
export const refusedWhenOn = (why: string): FieldRule => ({ harmless: absentOrFalse, why })

/**
 * Fields both clients may send with any call, which say nothing UMO needs: the answer format
 * (`output_format`, `version`; UMO always answers the current shape), the organization and project
 * the legacy clients repeat from the ping (the key decides the account), and the JS client's
 * telemetry label (`source`). `async_mode` too: the legacy 1.x client asks for background processing
 * on every add, and UMO answers once the memories are stored, which is what the caller waits for
 * then, sooner (the answer holds the events rather than a pending status).
 */
export const clientDefaults: Readonly<Record<string, FieldRule>> = {
  async_mode: "ignore",
  output_format: "ignore",
  version: "ignore",
  api_version: "ignore",
  org_id: "ignore",
  project_id: "ignore",
  source: "ignore"
}

/** Mem0 features that no call of UMO's has, refused wherever a body names them. */
export const missingFeatures: Readonly<Record<string, FieldRule>> = {
  app_id: refused("UMO's scopes are user_id, agent_id and run_id"),
  custom_instructions: refused("UMO keeps what was said and runs no extraction prompt"),
  agent_custom_instructions: refused("UMO keeps what was said and runs no extraction prompt"),
  structured_data_schema: refused("UMO keeps what was said, not structured attributes"),
  includes: refused("UMO keeps what was said and runs no extraction prompt"),
  excludes: refused("UMO keeps what was said and runs no extraction prompt"),
  enable_graph: refusedWhenOn("UMO has no graph memory"),
  reference_date: refused("UMO does not reinterpret times against another date")
}

/**
 * Mem0's `custom_categories` (`[{"drinks": "what they drink"}, …]`, a name and its description
 * each) as UMO's list; null or absent: the account's own.
 */
export const customCategoriesOf = (
  value: unknown
): Result.Result<ReadonlyArray<{ name: string; description: string }> | undefined, Mem0Refused> => {
  if (value === null || value === undefined) return Result.succeed(undefined)
  const rule = 'must be a list of {"name": "description"} objects, one category each'
  if (!Array.isArray(value)) return Result.fail(invalid("custom_categories", rule))
  const list: Array<{ name: string; description: string }> = []
  for (const [i, item] of value.entries()) {
    if (!isObject(item)) return Result.fail(invalid(`custom_categories.${i}`, rule))
    for (const [name, description] of Object.entries(item)) {
      if (typeof description !== "string") return Result.fail(invalid(`custom_categories.${i}.${name}`, rule))
      list.push({ name, description })
    }
  }
  return Result.succeed(list)
}

/** Checks every field of a body against `rules`: a field with no rule is refused, naming it. */
export const checkFields = (
  body: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, FieldRule>>,
  prefix = ""
): Result.Result<void, Mem0Refused> => {
  for (const [field, value] of Object.entries(body)) {
    const rule = rules[field]
    if (rule === undefined) return Result.fail(unsupported(`${prefix}${field}`))
    if (typeof rule === "object" && !rule.harmless(value))
      return Result.fail(unsupported(`${prefix}${field}`, rule.why))
  }
  return Result.void
}

const dateTimeWithoutOffset = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?$/

/**
 * A time as Mem0's clients send it — Unix seconds (add's `timestamp`), an ISO 8601 date, or a
 * date-time — as RFC 3339. A date-time without an offset is read as UTC, as Mem0 reads it (UMO's
 * own API asks for the offset).
 */
export const instantOf = (value: unknown, field: string): Result.Result<string, Mem0Refused> => {
  const rule = "must be Unix seconds or an ISO 8601 date or date-time, years 0002 to 9998"
  if (typeof value === "number") {
    const date = new Date(value * 1000)
    return Number.isFinite(value) && parseTimestamp(date.toISOString()) !== undefined
      ? Result.succeed(date.toISOString())
      : Result.fail(invalid(field, rule))
  }
  if (typeof value !== "string") return Result.fail(invalid(field, rule))
  const text = dateTimeWithoutOffset.test(value) ? `${value}Z` : value
  return parseTimestamp(text) === undefined ? Result.fail(invalid(field, rule)) : Result.succeed(text)
}

const dateOnly = /^\d{4}-\d{2}-\d{2}$/

/**
 * Mem0's `expiration_date` as UMO's `expires_at`: a date keeps the memory through that day (UTC),
 * so it expires as the next begins; a date-time is the instant. Null or absent: no expiry given.
 */
export const expiryOf = (value: unknown): Result.Result<string | undefined, Mem0Refused> => {
  if (value === null || value === undefined) return Result.succeed(undefined)
  const instant =
    typeof value === "string" && dateOnly.test(value) && parseTimestamp(value) !== undefined
      ? Result.succeed(new Date(parseTimestamp(value)!.getTime() + 86_400_000).toISOString())
      : typeof value === "number"
        ? Result.fail(
            invalid("expiration_date", "must be an ISO 8601 date (the last day it is kept) or date-time")
          )
        : instantOf(value, "expiration_date")
  // Refused before any message is stored: a memory expired at once would be lost as it was kept.
  return Result.flatMap(instant, (at) =>
    Date.parse(at) > Date.now()
      ? Result.succeed(at)
      : Result.fail(invalid("expiration_date", `must be in the future (got ${String(value)})`))
  )
}

/** Whether a value is a JSON object (not null, not a list). */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
