import { Effect, Fiber } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeTurnLock } from "../../src/storage/TurnLock.js"

/** Takes a turn, records it, holds it across `hold` yields, and records its end. */
const turn = (
  lock: ReturnType<typeof makeTurnLock>,
  log: Array<string>,
  name: string,
  urgent: boolean,
  hold = 1
) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* lock.take(urgent)
      log.push(`+${name}`)
      for (let i = 0; i < hold; i++) yield* Effect.yieldNow
      log.push(`-${name}`)
    })
  )

describe("TurnLock", () => {
  it("gives one turn at a time, each taker once, whatever the mix and timing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ urgent: fc.boolean(), hold: fc.nat(3), delay: fc.nat(3) }), {
          minLength: 1,
          maxLength: 40
        }),
        async (takers) => {
          const lock = makeTurnLock(3)
          const log: Array<string> = []
          await Effect.runPromise(
            Effect.forEach(
              takers,
              (t, i) =>
                Effect.andThen(
                  Effect.forEach(Array.from({ length: t.delay }), () => Effect.yieldNow),
                  turn(lock, log, String(i), t.urgent, t.hold)
                ),
              { concurrency: "unbounded", discard: true }
            )
          )
          // Each start is followed by its own end before any other start.
          expect(log).toHaveLength(takers.length * 2)
          for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(`-${log[i]!.slice(1)}`)
        }
      )
    )
  })

  it("lets single statements go before waiting transactions, but a transaction waits for at most N of them", async () => {
    const lock = makeTurnLock(2)
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const holder = yield* Effect.forkChild(turn(lock, log, "first", false, 5))
        yield* Effect.yieldNow
        const waiting = [
          yield* Effect.forkChild(turn(lock, log, "tx", false)),
          ...(yield* Effect.forEach(["a", "b", "c", "d"], (name) =>
            Effect.tap(Effect.forkChild(turn(lock, log, name, true)), () => Effect.yieldNow)
          ))
        ]
        yield* Fiber.joinAll([holder, ...waiting])
      })
    )
    expect(log.filter((e) => e.startsWith("+"))).toEqual(["+first", "+a", "+b", "+tx", "+c", "+d"])
  })

  it("passes the turn on past a waiter interrupted while it waits", async () => {
    const lock = makeTurnLock()
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const holder = yield* Effect.forkChild(turn(lock, log, "holder", false, 3))
        yield* Effect.yieldNow
        const gone = yield* Effect.forkChild(turn(lock, log, "gone", true))
        const next = yield* Effect.forkChild(turn(lock, log, "next", false))
        yield* Effect.yieldNow
        yield* Fiber.interrupt(gone)
        yield* Fiber.joinAll([holder, next])
      })
    )
    expect(log).toEqual(["+holder", "-holder", "+next", "-next"])
  })
})
