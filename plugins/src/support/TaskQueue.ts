import { Effect, Semaphore } from "effect"

/** A queue of tasks run one at a time, with a bound on how many may wait. */
export interface TaskQueue {
  /**
   * Runs `task` once the tasks before it are done, or fails at once with `full()` when `maxWaiting`
   * tasks already wait. A task that is interrupted while waiting leaves the queue.
   */
  readonly run: <A, E, R, F>(task: Effect.Effect<A, E, R>, full: () => F) => Effect.Effect<A, E | F, R>
  /** How many tasks wait now (the one running not counted). */
  readonly waiting: () => number
}

/**
 * One task at a time: a language model on a machine's cores answers two questions together no
 * faster than one after the other, and each slower; waiting in line keeps the first answer fast.
 * Past `maxWaiting` a caller is told to come back rather than left to wait behind a long line.
 */
export const makeTaskQueue = (maxWaiting: number): TaskQueue => {
  const semaphore = Semaphore.makeUnsafe(1)
  let waiting = 0
  let running = 0
  const run = <A, E, R, F>(task: Effect.Effect<A, E, R>, full: () => F): Effect.Effect<A, E | F, R> =>
    Effect.suspend((): Effect.Effect<A, E | F, R> => {
      if (running + waiting > maxWaiting) return Effect.fail(full())
      waiting++
      let started = false
      const start = Effect.sync(() => {
        started = true
        waiting--
        running++
      })
      return semaphore
        .withPermits(1)(Effect.andThen(start, task))
        .pipe(
          Effect.ensuring(
            Effect.sync(() => {
              if (started) running--
              else waiting--
            })
          )
        )
    })
  return { run, waiting: () => waiting }
}
