/**
 * One pass of the update scenarios through the memory service in this process: every person's
 * memories captured in time order under their `user_id`, then every question searched and
 * answered with that `user_id`. What the service superseded is compared with what each scenario
 * says a careful reader would; what search puts first and what ask answers with the current
 * value; and every result and citation is checked to be that person's.
 * @module
 */
import type { OpenMemory } from "@umo/memory"
import { answered, type Person, readSets, type ScenarioSet } from "./Scenarios.js"

/** What one pass measured, over all the sets' people. */
export interface PassResult {
  readonly people: number
  readonly memories: number
  /** Supersessions the scenarios expect, inferred ones, and those both hold. */
  readonly expected_supersessions: number
  readonly inferred_supersessions: number
  readonly correct_supersessions: number
  /** Memories that should have stayed current but were superseded, of those that should have. */
  readonly false_supersessions: number
  readonly should_stay_current: number
  /** Per question kind: how many, search's first result the expected memory, ask's answer right. */
  readonly questions: Record<string, { count: number; search_first: number; ask_right: number }>
  /** Results and citations of filtered search and ask that were another user's memories. */
  readonly leaks: number
  readonly misses: ReadonlyArray<string>
  /** Each capture's time, in ms, in order. */
  readonly capture_ms: ReadonlyArray<number>
}

/** Captures one person's memories in order; their umo ids by scenario id, and what superseded what. */
const capturePerson = async (memory: OpenMemory, person: Person, inferUpdates: boolean) => {
  const ids = new Map<string, string>()
  const inferred = new Set<string>()
  const times: Array<number> = []
  for (const m of person.memories) {
    const started = performance.now()
    const captured = await memory.capture(m.text, {
      userId: person.user_id,
      timestamp: m.timestamp,
      inferUpdates
    })
    times.push(performance.now() - started)
    ids.set(m.id, captured.umoId)
    for (const older of captured.supersedes) inferred.add(`${older}>${captured.umoId}`)
    if (captured.supersededBy !== null) inferred.add(`${captured.umoId}>${captured.supersededBy}`)
  }
  return { ids, inferred, times }
}

/** What several passes measured together. */
export const combined = (passes: ReadonlyArray<PassResult>): PassResult => {
  const sum = (key: keyof PassResult) => passes.reduce((n, p) => n + (p[key] as number), 0)
  const questions: PassResult["questions"] = {}
  for (const pass of passes)
    for (const [kind, tally] of Object.entries(pass.questions)) {
      questions[kind] ??= { count: 0, search_first: 0, ask_right: 0 }
      const into = questions[kind]!
      into.count += tally.count
      into.search_first += tally.search_first
      into.ask_right += tally.ask_right
    }
  return {
    people: sum("people"),
    memories: sum("memories"),
    expected_supersessions: sum("expected_supersessions"),
    inferred_supersessions: sum("inferred_supersessions"),
    correct_supersessions: sum("correct_supersessions"),
    false_supersessions: sum("false_supersessions"),
    should_stay_current: sum("should_stay_current"),
    questions,
    leaks: sum("leaks"),
    misses: passes.flatMap((p) => p.misses),
    capture_ms: passes.flatMap((p) => p.capture_ms)
  }
}

/** Runs one set's people through `memory` (captures with `inferUpdates` as given). */
export const runScenarios = async (
  memory: OpenMemory,
  set: ScenarioSet,
  inferUpdates: boolean,
  report: (line: string) => void
): Promise<PassResult> => {
  const people = set.people
  const owner = new Map<string, string>()
  let memories = 0
  let expected = 0
  let inferredCount = 0
  let correct = 0
  let falseSupersessions = 0
  let shouldStay = 0
  let leaks = 0
  const questions: PassResult["questions"] = {}
  const misses: Array<string> = []
  const captureMs: Array<number> = []
  for (const [n, person] of people.entries()) {
    report(`updates: ${inferUpdates ? "" : "(no inference) "}${set.name} person ${n + 1} of ${people.length}`)
    const { ids, inferred, times } = await capturePerson(memory, person, inferUpdates)
    captureMs.push(...times)
    for (const id of ids.values()) owner.set(id, person.user_id)
    memories += person.memories.length
    const wanted = new Set(
      person.memories.flatMap((m) => m.supersedes.map((older) => `${ids.get(older)}>${ids.get(m.id)}`))
    )
    const supersededOlder = new Set([...wanted].map((pair) => pair.split(">")[0]))
    expected += wanted.size
    inferredCount += inferred.size
    for (const pair of inferred) {
      if (wanted.has(pair)) correct++
      else misses.push(`false supersession ${person.user_id}: ${describe(person, ids, pair)}`)
    }
    for (const pair of wanted)
      if (!inferred.has(pair)) misses.push(`missed ${person.user_id}: ${describe(person, ids, pair)}`)
    const superseded = new Set([...inferred].map((pair) => pair.split(">")[0]))
    for (const m of person.memories) {
      const id = ids.get(m.id)!
      if (supersededOlder.has(id)) continue
      shouldStay++
      if (superseded.has(id)) falseSupersessions++
    }
    for (const q of person.questions) {
      questions[q.kind] ??= { count: 0, search_first: 0, ask_right: 0 }
      const tally = questions[q.kind]!
      tally.count++
      const results = await memory.ask(q.question, {
        userId: person.user_id,
        limit: 5,
        includeSuperseded: q.kind === "history"
      })
      leaks += results.filter((r) => r.userId !== person.user_id).length
      if (results[0]?.umoId === ids.get(q.expected_top)) tally.search_first++
      else
        misses.push(
          `search ${person.user_id} "${q.question}": first ${JSON.stringify(results[0]?.content ?? null)}`
        )
      const answer = await memory.answer(q.question, { userId: person.user_id })
      leaks += answer.citations.filter((c) => owner.get(c.umoId) !== person.user_id).length
      if (answered(q, answer.text)) tally.ask_right++
      else misses.push(`ask ${person.user_id} "${q.question}": ${JSON.stringify(answer.text)}`)
    }
  }
  return {
    people: people.length,
    memories,
    expected_supersessions: expected,
    inferred_supersessions: inferredCount,
    correct_supersessions: correct,
    false_supersessions: falseSupersessions,
    should_stay_current: shouldStay,
    questions,
    leaks,
    // A set never read keeps its misses to itself: only its totals are reported.
    misses: readSets.has(set.name) ? misses : [],
    capture_ms: captureMs
  }
}

/** "old text" → "new text", for a supersession named by umo ids. */
const describe = (person: Person, ids: ReadonlyMap<string, string>, pair: string) => {
  const text = (umoId: string) => {
    const scenarioId = [...ids].find(([, u]) => u === umoId)?.[0]
    return JSON.stringify(person.memories.find((m) => m.id === scenarioId)?.text ?? umoId)
  }
  const [older, newer] = pair.split(">") as [string, string]
  return `${text(older)} → ${text(newer)}`
}
