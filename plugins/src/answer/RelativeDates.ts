/**
 * Relative time in a memory ("yesterday", "last Friday", "two weekends ago") turned into an
 * absolute answer, resolved against the memory's own timestamp: the question is asked later, so
 * "last week" means nothing without the day it was written. Answers are the phrases people (and
 * LoCoMo's annotators) write: "7 May 2023", "the Friday before 15 July 2023", "the week before
 * 9 June 2023", "June 2023", "2022".
 */

const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
const counts: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  few: 3
}
const countWords = ["", "", "two", "three", "four", "five", "six"]

const dayMs = 86_400_000

/** A UTC day as "7 May 2023". */
export const readableDay = (date: Date) =>
  date.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })

/** A month as "June 2023"; `month` may run past either end of the year. */
const readableMonth = (year: number, month: number) =>
  new Date(Date.UTC(year, month, 1)).toLocaleDateString("en-GB", {
    month: "long",
    year: "numeric",
    timeZone: "UTC"
  })

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

const count = "(\\d+|a|an|one|two|three|four|five|six|few)"
const unit = "(day|week|weekend|month|year)s?"
const patterns = new RegExp(
  [
    "\\b(yesterday|today|tonight|tomorrow|this morning|this afternoon|this evening)\\b",
    `\\b${count} ${unit} ago\\b`,
    `\\b(last|past|this|next) (week|weekend|month|year|${weekdays.join("|")})\\b`,
    `\\bon (${weekdays.join("|")})\\b`
  ].join("|"),
  "i"
)

const months = "january|february|march|april|may|june|july|august|september|october|november|december"
/** A month, with or without its day, right before "next year" ("March 2", "2 March", "in May"). */
const monthBefore = new RegExp(
  `\\b(?:(${months})(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?|(\\d{1,2})(?:st|nd|rd|th)?(?:\\s+of)?\\s+(${months}))\\s*,?\\s*$`,
  "i"
)

const quantity = (word: string) => (/^\d+$/.test(word) ? Number(word) : (counts[word.toLowerCase()] ?? 1))

/**
 * The absolute time the first relative expression in `text` names, resolved against `timestamp`
 * (an ISO date-time); undefined when the text holds none.
 */
export const resolveRelativeTime = (text: string, timestamp: string): string | undefined => {
  const match = patterns.exec(text)
  if (!match) return undefined
  const now = new Date(`${timestamp.slice(0, 10)}T00:00:00Z`)
  const day = (offset: number) => readableDay(new Date(now.getTime() + offset * dayMs))
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth()
  const [, simple, n, agoUnit, which, what, weekday] = match as unknown as ReadonlyArray<string | undefined>
  if (simple) {
    const word = simple.toLowerCase()
    return day(word === "yesterday" ? -1 : word === "tomorrow" ? 1 : 0)
  }
  if (agoUnit) {
    const k = quantity(n!)
    const u = agoUnit.toLowerCase()
    if (u === "day") return day(-k)
    if (u === "month") return readableMonth(year, month - k)
    if (u === "year") return String(year - k)
    const span = k === 1 ? `The ${u}` : `${countWords[k] ?? k} ${u}s`
    return `${capitalized(span)} before ${day(0)}`
  }
  if (which) {
    const w = which.toLowerCase()
    const unitWord = what!.toLowerCase()
    const step = w === "next" ? 1 : w === "this" ? 0 : -1
    if (weekdays.includes(unitWord)) {
      const name = capitalized(unitWord)
      return step === 1 ? `The ${name} after ${day(0)}` : `The ${name} before ${day(0)}`
    }
    if (unitWord === "month") return readableMonth(year, month + step)
    if (unitWord === "year") {
      // "March 2 next year", "in May last year": the day or month named before it, in that year.
      const named = monthBefore.exec(text.slice(0, match.index))
      // "I may next year…": "may" in small letters and without a day is no month.
      if (named === null || named[1] === "may") return String(year + step)
      const monthName = capitalized((named[1] ?? named[4])!.toLowerCase())
      const dayOfMonth = named[2] ?? named[3]
      return `${dayOfMonth === undefined ? "" : `${Number.parseInt(dayOfMonth, 10)} `}${monthName} ${year + step}`
    }
    if (step === 0) return `The ${unitWord} of ${day(0)}`
    return `The ${unitWord} ${step === 1 ? "after" : "before"} ${day(0)}`
  }
  if (weekday) {
    // "On Friday" in what someone tells is, far more often than not, the Friday just gone.
    return `The ${capitalized(weekday.toLowerCase())} before ${day(0)}`
  }
  return undefined
}
