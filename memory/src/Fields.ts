/**
 * The fields a caller sends, with every limit enforced on them. The requests of the Memory service
 * are built from these — the HTTP API's too — so `/openapi.json` states each limit, decoding
 * enforces it, and a failure names the field and the rule (see `describeIssue`).
 * @module
 */
import { storableText } from "@umo/core"
import { visibleCharacter } from "@umo/plugins"
import { Schema, SchemaGetter } from "effect"

/** Made storable once checked: U+0000 dropped, unpaired surrogates as U+FFFD (see `storableText`). */
const storable = Schema.decode<Schema.String>({
  decode: SchemaGetter.transform(storableText),
  encode: SchemaGetter.transform((text: string) => text)
})

/** Text of at most `max` characters (Unicode code points, as JSON Schema counts them). */
export const Text = (max: number) =>
  Schema.String.check(
    Schema.isMaxCodePoints(max, { message: `must be at most ${max.toLocaleString("en")} characters` })
  ).pipe(storable)

/**
 * Text with at least one visible character (not only spaces, line breaks or control characters:
 * what normalization would leave empty), of at most `max` characters.
 */
export const VisibleText = (max: number) =>
  Schema.String.check(
    Schema.isMaxCodePoints(max, { message: `must be at most ${max.toLocaleString("en")} characters` }),
    Schema.isPattern(visibleCharacter, { message: "must contain a visible character" })
  ).pipe(storable)

/** Longest `source`: it is indexed, and an index entry must fit in a third of a database page. */
export const sourceLength = 512

/** A memory's source: a label to filter by. */
export const Source = Text(sourceLength).annotate({ description: `at most ${sourceLength} characters` })

const dateOrDateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))?$/

/**
 * Years 0002–9998: any offset keeps such an instant between 0001 and 9999 in UTC, the years the
 * database and the ISO form every timestamp is kept in can both hold.
 */
const inRange = /^(?!000[01]-|9999-)/

/** Parses an RFC 3339 date-time (with its offset) or date (midnight UTC); undefined if invalid. */
export const parseTimestamp = (text: string): Date | undefined => {
  const match = dateOrDateTime.exec(text)
  if (match === null || !inRange.test(text)) return undefined
  const [, year, month, day, hour = "00", minute = "00", second = "00", fraction = "", zone = "Z"] = match
  // A leap second (:60) is the last moment of its minute here: the platform has none.
  const seconds = second === "60" ? "59.999" : `${second}${fraction.slice(0, 4)}`
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${seconds}${zone.toUpperCase()}`)
  const calendar = new Date(0)
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  calendar.setUTCFullYear(Number(year), Number(month) - 1, Number(day))
  const realDay =
    calendar.getUTCFullYear() === Number(year) &&
    calendar.getUTCMonth() === Number(month) - 1 &&
    calendar.getUTCDate() === Number(day)
  return Number.isNaN(date.getTime()) || !realDay || Number(hour) > 23 || Number(minute) > 59
    ? undefined
    : date
}

/** When the content happened: an RFC 3339 date-time with its offset, or a date. */
export const Timestamp = Schema.String.check(
  Schema.makeFilter((text: string) => parseTimestamp(text) !== undefined, {
    message:
      "must be an RFC 3339 date-time with an offset (2024-05-01T09:30:00Z) or a date (2024-05-01), years 0002 to 9998",
    toJsonSchema: () => ({ anyOf: [{ format: "date-time" }, { format: "date" }], pattern: inRange.source })
  })
).annotate({ description: "RFC 3339 date-time with an offset, or a date; years 0002 to 9998" })

const memoryIdPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** A memory's id, a UUID (the pattern stated for the OpenAPI document too). */
export const MemoryId = Schema.String.check(
  Schema.makeFilter((text: string) => memoryIdPattern.test(text), {
    message: "must be a memory id (a UUID)",
    toJsonSchema: () => ({ pattern: memoryIdPattern.source })
  })
).annotate({ description: "a memory id (a UUID)" })

/** A whole number from `min` to `max`. */
export const Count = (min: number, max: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }))

/** Text that travels in a query string: short enough that 12 bytes a character (percent-encoded) fit 16 KB. */
export const QueryText = Text(1_000)

/**
 * An idempotency key (IETF draft "The Idempotency-Key HTTP Header Field"): 1 to 255 visible ASCII
 * characters, e.g. a UUID. Kept for 24 hours, per account.
 */
export const IdempotencyKey = Schema.String.check(
  Schema.isPattern(/^[!-~]{1,255}$/u, { message: "must be 1 to 255 visible ASCII characters" })
)

/** Largest file an upload reads (DESIGN.md: 20 MB). */
export const uploadLimitBytes = 20 * 1024 * 1024

/**
 * An end user, agent or conversation inside the account (`user_id`, `agent_id`, `session_id`):
 * 1 to 200 printable characters (no control characters), with no whitespace at either end.
 */
export const ScopeId = Schema.String.check(
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it excludes
  Schema.isPattern(/^[^\u0000-\u001F\u007F-\u009F]{1,200}$/u, {
    message: "must be 1 to 200 printable characters"
  }),
  // " john smith " and "john smith" would be two users who look the same everywhere: refused, not
  // trimmed, so an id is stored exactly as the caller sent it or not at all.
  Schema.isPattern(/^\S(?:[\s\S]*\S)?$/u, {
    message: "must not start or end with whitespace"
  })
)
  .pipe(storable)
  .annotate({ description: "1 to 200 printable characters, not starting or ending with whitespace" })

const metadataKeyPattern = /^[A-Za-z0-9_.-]{1,64}$/

/** A metadata key: 1 to 64 letters, digits, `_`, `.` or `-`. */
export const MetadataKey = Schema.String.check(
  Schema.isPattern(metadataKeyPattern, {
    message: "a metadata key is 1 to 64 letters, digits, '_', '.' or '-'"
  })
)

/**
 * A record keyed by metadata keys, saying so in its JSON Schema (a record's key check is not
 * rendered there on its own) and naming the rule when a key breaks it.
 */
export const MetadataRecord = <V extends Schema.Top>(value: V) =>
  Schema.Record(MetadataKey, value)
    .annotate({ messageUnexpectedKey: "a metadata key is 1 to 64 letters, digits, '_', '.' or '-'" })
    .check(
      Schema.makeFilter(() => true, {
        toJsonSchema: () => ({ propertyNames: { pattern: metadataKeyPattern.source } })
      })
    )

/** A metadata string: at most 1,000 characters. */
export const MetadataText = Text(1_000)

/** Largest metadata object, as compact JSON in UTF-8. */
export const metadataBytes = 8 * 1024

/**
 * A memory's metadata: a flat JSON object of at most 32 keys, each value a string of at most 1,000
 * characters, a number, a boolean, null or a list of at most 50 such strings; 8 KB in all (as
 * compact JSON).
 */
export const Metadata = MetadataRecord(
  Schema.Union([
    MetadataText,
    Schema.Finite,
    Schema.Boolean,
    Schema.Null,
    Schema.Array(MetadataText).check(Schema.isMaxLength(50, { message: "a list holds at most 50 strings" }))
  ])
)
  .check(
    Schema.isMaxProperties(32, { message: "at most 32 keys" }),
    Schema.makeFilter(
      (metadata: object) => Buffer.byteLength(JSON.stringify(metadata), "utf8") <= metadataBytes,
      { message: "at most 8 KB in all (as compact JSON)" }
    )
  )
  .annotate({
    description:
      "your own tags: a flat object of at most 32 keys ([A-Za-z0-9_.-]{1,64}), each value a string (1,000 characters at most), " +
      "a number, a boolean, null or a list of at most 50 strings; at most 8 KB in all, as compact JSON"
  })
