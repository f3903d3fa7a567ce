import { Context, Effect } from "effect"

/** One stage of a request and how long it took, in milliseconds. */
export interface StageTiming {
  readonly name: string
  readonly ms: number
  /** What the stage did, when that varies (a token, like the name). */
  readonly description?: string | undefined
}

/**
 * The stages timed during the current call (embedding the query, the vector and text searches, …),
 * so a caller can see where its time went: the reference server reports them in each response's
 * `Server-Timing` header (W3C Server Timing). Whoever wants them provides a fresh list per call;
 * otherwise nothing is recorded.
 */
export const StageTimings = Context.Reference<Array<StageTiming> | undefined>("@umo/memory/StageTimings", {
  defaultValue: () => undefined
})

/** Milliseconds since `started` (a `performance.now()`), to a tenth. */
export const elapsedMs = (started: number) => Math.round((performance.now() - started) * 10) / 10

/**
 * Runs `effect` and records its duration as stage `name` (a token: letters, digits, `-`, `_`),
 * with the description `describe` gives of its result, if any.
 */
export function timed(name: string): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
export function timed<A>(
  name: string,
  describe: (result: A) => string
): <E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
export function timed<A>(name: string, describe?: (result: A) => string) {
  return <E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const started = performance.now()
      const result = yield* effect
      const stages = yield* StageTimings
      stages?.push({ name, ms: elapsedMs(started), description: describe?.(result) })
      return result
    })
}
