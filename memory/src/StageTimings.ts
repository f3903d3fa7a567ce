import { Context, Effect } from "effect"

/** One stage of a request and how long it took, in milliseconds. */
export interface StageTiming {
  readonly name: string
  readonly ms: number
}

/**
 * The stages timed during the current request, reported after `app` in its `Server-Timing`
 * header (W3C Server Timing) so a client or benchmark can see where a request's time went. The
 * request middleware provides a fresh list per request; outside a request nothing is recorded.
 */
export const StageTimings = Context.Reference<Array<StageTiming> | undefined>("@umo/memory/StageTimings", {
  defaultValue: () => undefined
})

/** Milliseconds since `started` (a `performance.now()`), to a tenth. */
export const elapsedMs = (started: number) => Math.round((performance.now() - started) * 10) / 10

/** Runs `effect` and records its duration as stage `name` (a token: letters, digits, `-`, `_`). */
export const timed =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const started = performance.now()
      const result = yield* effect
      const stages = yield* StageTimings
      stages?.push({ name, ms: elapsedMs(started) })
      return result
    })

/** The `Server-Timing` value: the whole request, then its stages. */
export const serverTiming = (totalMs: number, stages: ReadonlyArray<StageTiming>) =>
  [`app;dur=${totalMs}`, ...stages.map((s) => `${s.name};dur=${s.ms}`)].join(", ")
