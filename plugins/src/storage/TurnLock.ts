import { Deferred, Effect, type Scope } from "effect"

/**
 * Turns on one connection, given to single statements before transactions. PGlite runs one thing
 * at a time, and a batch capture's transaction holds it for a few hundred milliseconds: a search
 * makes several reads one after another, and in arrival order each would wait behind every
 * capture queued before it. A statement waits for the turn under way only — and a transaction
 * still gets a turn after `urgentInARow` statements have gone before it, so reads cannot starve writes.
 */
export interface TurnLock {
  /** Takes a turn for the life of the scope: `urgent` for a single statement, not for a transaction. */
  readonly take: (urgent: boolean) => Effect.Effect<void, never, Scope.Scope>
}

export const makeTurnLock = (urgentInARow = 8): TurnLock => {
  let held = false
  let inARow = 0
  const urgent: Array<Deferred.Deferred<void>> = []
  const later: Array<Deferred.Deferred<void>> = []
  /** Gives the turn to the next waiting, else frees the lock. */
  const pass = () => {
    let next: Deferred.Deferred<void> | undefined
    if (urgent.length > 0 && (later.length === 0 || inARow < urgentInARow)) {
      next = urgent.shift()
      inARow = later.length > 0 ? inARow + 1 : 0
    } else {
      next = later.shift()
      inARow = 0
    }
    if (next === undefined) held = false
    else Deferred.doneUnsafe(next, Effect.void)
  }
  const acquire = (queue: Array<Deferred.Deferred<void>>) =>
    Effect.suspend(() => {
      if (!held) {
        held = true
        return Effect.void
      }
      const turn = Deferred.makeUnsafe<void>()
      queue.push(turn)
      return Deferred.await(turn).pipe(
        Effect.onInterrupt(() =>
          Effect.sync(() => {
            const at = queue.indexOf(turn)
            // Still waiting: it leaves the queue. Given the turn as it was interrupted: passed on.
            if (at >= 0) queue.splice(at, 1)
            else pass()
          })
        )
      )
    })
  return {
    take: (isUrgent) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.andThen(
          restore(acquire(isUrgent ? urgent : later)),
          Effect.addFinalizer(() => Effect.sync(pass))
        )
      )
  }
}
