import { it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect } from "vitest"
import { makeTaskQueue } from "../../src/support/TaskQueue.js"

const full = () => "full" as const

describe("TaskQueue", () => {
  it.live("runs tasks one at a time, in the order they came", () =>
    Effect.gen(function* () {
      const queue = makeTaskQueue(10)
      let running = 0
      let most = 0
      const order: Array<number> = []
      const task = (n: number) =>
        Effect.gen(function* () {
          running++
          most = Math.max(most, running)
          yield* Effect.sleep(5)
          order.push(n)
          running--
          return n
        })
      const results = yield* Effect.all(
        [1, 2, 3, 4, 5].map((n) => queue.run(task(n), full)),
        { concurrency: "unbounded" }
      )
      expect(results).toEqual([1, 2, 3, 4, 5])
      expect(order).toEqual([1, 2, 3, 4, 5])
      expect(most).toBe(1)
    })
  )

  it.effect("refuses a task when maxWaiting already wait, and takes one again once the line moves", () =>
    Effect.gen(function* () {
      const queue = makeTaskQueue(2)
      const gate = yield* Deferred.make<void>()
      const blocked = Deferred.await(gate)
      const first = yield* Effect.forkChild(queue.run(blocked, full))
      const second = yield* Effect.forkChild(queue.run(blocked, full))
      const third = yield* Effect.forkChild(queue.run(blocked, full))
      yield* Effect.yieldNow
      expect(queue.waiting()).toBe(2)
      expect(yield* Effect.flip(queue.run(Effect.void, full))).toBe("full")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      expect(queue.waiting()).toBe(0)
      expect(yield* queue.run(Effect.succeed("ran"), full)).toBe("ran")
    })
  )

  it.effect("a task interrupted while waiting leaves the line; a failed task frees it", () =>
    Effect.gen(function* () {
      const queue = makeTaskQueue(1)
      const gate = yield* Deferred.make<void>()
      const running = yield* Effect.forkChild(queue.run(Deferred.await(gate), full))
      const waiting = yield* Effect.forkChild(queue.run(Effect.succeed("never"), full))
      yield* Effect.yieldNow
      expect(queue.waiting()).toBe(1)
      yield* Fiber.interrupt(waiting)
      expect(queue.waiting()).toBe(0)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      expect(yield* Effect.flip(queue.run(Effect.fail("boom"), full))).toBe("boom")
      expect(yield* queue.run(Effect.succeed("next"), full)).toBe("next")
    })
  )
})
