import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { urgentFirst } from "../../src/support/UrgentFirst.js"

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("urgentFirst", () => {
  it("runs one call at a time: the one under way, then every urgent call waiting, then the others, each lane in order (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), async (urgency) => {
        const queue = urgentFirst()
        const started: Array<number> = []
        let running = 0
        let most = 0
        const call = (i: number) => async () => {
          started.push(i)
          most = Math.max(most, ++running)
          await tick()
          running--
          return i
        }
        const results = urgency.map((urgent, i) => queue.run(call(i), urgent))
        expect(await Promise.all(results)).toEqual(urgency.map((_, i) => i))
        expect(most).toBe(1)
        const rest = urgency.map((urgent, i) => ({ urgent, i })).slice(1)
        expect(started).toEqual([
          0,
          ...rest.filter((c) => c.urgent).map((c) => c.i),
          ...rest.filter((c) => !c.urgent).map((c) => c.i)
        ])
      })
    )
  })

  it("drops a waiting call whose signal aborts, and goes on with the next; a failed call frees its turn", async () => {
    const queue = urgentFirst()
    const order: Array<string> = []
    let release!: () => void
    const first = queue.run(
      () =>
        new Promise<string>((resolve) => {
          order.push("first")
          release = () => resolve("first")
        }),
      false
    )
    const controller = new AbortController()
    const dropped = queue.run(
      async () => {
        order.push("dropped")
        return "dropped"
      },
      true,
      controller.signal
    )
    const failing = queue.run(async () => {
      order.push("failing")
      throw new Error("model failed")
    }, false)
    const last = queue.run(async () => {
      order.push("last")
      return "last"
    }, false)
    controller.abort(new Error("the client left"))
    await expect(dropped).rejects.toThrow("the client left")
    release()
    expect(await first).toBe("first")
    await expect(failing).rejects.toThrow("model failed")
    expect(await last).toBe("last")
    expect(order).toEqual(["first", "failing", "last"])
  })
})
