import { it } from "@effect/vitest"
import { type SigningKeySet, verifyReceipt } from "@umo/core"
import { InvalidRequest, Memory, MemoryNotFound } from "@umo/memory"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { as, LetterEmbedder, testMemory } from "../support/TestMemory.js"

const unknownId = "00000000-0000-7000-8000-000000000000"

describe("changes of many memories", () => {
  it.layer(testMemory(LetterEmbedder), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect(
      "are stored whole or not at all: one refused change (anywhere) changes nothing (property)",
      () =>
        as("update-many")(
          Effect.gen(function* () {
            const memory = yield* Memory
            const run = Effect.runPromiseWith(yield* Effect.context<never>())
            let round = 0
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(
                  fc.integer({ min: 1, max: 5 }),
                  fc.option(fc.nat(), { nil: undefined }),
                  async (count, bad) => {
                    const user = `round-${round++}`
                    const { results } = (await run(
                      memory.batch({
                        items: Array.from({ length: count }, (_, i) => ({
                          content: `Shelf ${i} holds box ${i}.`,
                          user_id: user
                        }))
                      }) as never
                    )) as { results: ReadonlyArray<{ umo_id: string }> }
                    const ids = results.map((r) => r.umo_id)
                    const updates = ids.map((umo_id, i) => ({
                      umo_id,
                      content: `Shelf ${i} holds crate ${i}.`
                    }))
                    const wrongAt = bad === undefined ? undefined : bad % (count + 1)
                    if (wrongAt !== undefined)
                      updates.splice(wrongAt, 0, { umo_id: unknownId, content: "Nowhere." })
                    const outcome = (await run(Effect.result(memory.updateMany({ updates })) as never)) as {
                      _tag: "Success" | "Failure"
                    }
                    const current = (await run(memory.list({ user_id: user, limit: 100 }) as never)) as {
                      items: ReadonlyArray<{ summary: string }>
                    }
                    const texts = current.items.map((m) => m.summary).sort()
                    if (wrongAt === undefined) {
                      expect(outcome._tag).toBe("Success")
                      expect(texts.every((t) => t.includes("crate"))).toBe(true)
                    } else {
                      expect(outcome._tag).toBe("Failure")
                      expect(texts.every((t) => t.includes("box"))).toBe(true)
                    }
                    expect(texts).toHaveLength(count)
                  }
                ),
                { numRuns: 12 }
              )
            )
          })
        )
    )

    it.effect("refuses a change of many naming the change, and an immutable memory in it", () =>
      as("update-many-refusals")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const a = yield* memory.capture({ content: "The red key opens the shed." })
          const fixed = yield* memory.capture({ content: "The blue key opens the gate.", immutable: true })
          const refused = yield* Effect.flip(
            memory.updateMany({
              updates: [
                { umo_id: a.umo_id, content: "The red key opens the garage." },
                { umo_id: fixed.umo_id, content: "The blue key opens the door." }
              ]
            })
          )
          expect(refused).toBeInstanceOf(InvalidRequest)
          expect((refused as InvalidRequest).detail).toMatch(/updates\.1: memory .* is immutable/)
          expect((yield* memory.get(a.umo_id)).superseded_by).toBeNull()
        })
      )
    )

    it.effect("deletes many as one unit with one signed receipt, or none when one is unknown", () =>
      as("forget-many")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const { results } = yield* memory.batch({
            items: [{ content: "Alpha note." }, { content: "Beta note." }, { content: "Gamma note." }]
          })
          const ids = results.map((r) => r.umo_id!)
          const missing = yield* Effect.flip(memory.forgetMany({ umo_ids: [ids[0]!, unknownId] }))
          expect(missing).toBeInstanceOf(MemoryNotFound)
          expect((yield* memory.list()).total_count).toBe(3)
          const erased = yield* memory.forgetMany({ umo_ids: [ids[0]!, ids[2]!] })
          expect(erased.forgotten).toBe(2)
          const keys = (yield* memory.signingKeys) as unknown as SigningKeySet
          const claims = yield* Effect.promise(() => verifyReceipt(erased.receipt, keys))
          expect([...claims.umo_ids!].sort()).toEqual([ids[0]!, ids[2]!].sort())
          expect((yield* memory.list()).items.map((m) => m.umo_id)).toEqual([ids[1]])
        })
      )
    )
  })
})
