/**
 * The update scenarios (`bench/updates/scenarios.*.json`): people whose facts change, told as
 * first-person memories in time order, with the older memories each one makes out of date and
 * questions about what is current, what was, and what holds side by side.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"

const ScenarioMemory = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  timestamp: Schema.String,
  /** Ids of this person's older memories this one makes out of date. */
  supersedes: Schema.Array(Schema.String)
})

const ScenarioQuestion = Schema.Struct({
  kind: Schema.Literals(["current", "history", "additive"]),
  question: Schema.String,
  /** The memory that best answers it. */
  expected_top: Schema.String,
  /** Acceptable answers: any one, as a case-insensitive substring. */
  answers: Schema.optional(Schema.Array(Schema.String)),
  /** Answers that must all appear. */
  all_of: Schema.optional(Schema.Array(Schema.String))
})
export type ScenarioQuestion = typeof ScenarioQuestion.Type

const Person = Schema.Struct({
  user_id: Schema.String,
  name: Schema.String,
  memories: Schema.Array(ScenarioMemory),
  questions: Schema.Array(ScenarioQuestion)
})
export type Person = typeof Person.Type

const ScenarioFile = Schema.Struct({ description: Schema.String, people: Schema.Array(Person) })

/**
 * The sets whose misses may be read: `dev` (the fact rules were tuned on it), `test`, `blind` and `blind3`
 * (read after their first runs). The others (`blind2`, `blind4`, `blind5`, `blind6`, and `blind7`,
 * `blind8`, `blind9`, written for issue 57 before any of its training pairs) are never read: only
 * their totals are reported.
 */
export const readSets: ReadonlySet<string> = new Set(["dev", "test", "blind", "blind3"])

/** One file's people, named by the file (`dev`, `test`). */
export interface ScenarioSet {
  readonly name: string
  readonly people: ReadonlyArray<Person>
}

/** Every scenario file in `dir`, checked: ids unique, supersedes pointing back in time, questions pointing at memories. */
export const loadScenarios = (dir: string): ReadonlyArray<ScenarioSet> =>
  readdirSync(dir)
    .filter((f) => /^scenarios\.[\w-]+\.json$/.test(f))
    .sort()
    .map((file) => {
      const { people } = Schema.decodeUnknownSync(ScenarioFile)(
        JSON.parse(readFileSync(join(dir, file), "utf8"))
      )
      for (const person of people) {
        const seen = new Set<string>()
        for (const memory of person.memories) {
          for (const older of memory.supersedes)
            if (!seen.has(older))
              throw new Error(
                `${file}: ${person.user_id}/${memory.id} supersedes ${older}, not an earlier memory`
              )
          seen.add(memory.id)
        }
        for (const q of person.questions)
          if (!seen.has(q.expected_top))
            throw new Error(`${file}: ${person.user_id}: "${q.question}" expects ${q.expected_top}`)
      }
      return { name: file.replace(/^scenarios\.|\.json$/g, ""), people }
    })

/** Whether an answer gives what a question expects. */
export const answered = (question: ScenarioQuestion, answer: string): boolean => {
  const text = answer.toLowerCase()
  if (question.all_of !== undefined) return question.all_of.every((a) => text.includes(a.toLowerCase()))
  return (question.answers ?? []).some((a) => text.includes(a.toLowerCase()))
}
