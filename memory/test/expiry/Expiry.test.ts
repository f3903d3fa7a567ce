import { it } from "@effect/vitest"
import { type SigningKeySet, verifyReceipt } from "@umo/core"
import { InvalidRequest, Memory, type MemoryAccount, MemoryNotFound } from "@umo/memory"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { as, LetterEmbedder, testMemory } from "../support/TestMemory.js"

// The sweeper is started by hand here (`sweepExpired`): its timer would race the assertions.
const layer = testMemory(LetterEmbedder)
const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const failure = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flip(effect)

describe("expiry", () => {
  it.layer(layer, { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect(
      "an expired memory leaves get, list and search at once; the sweep erases it with a signed receipt",
      () =>
        as("expiring")(
          Effect.gen(function* () {
            const memory = yield* Memory
            // The first capture loads the pipeline's models: the expiring one comes second.
            const kept = yield* memory.capture({ content: "The door code was 1111 last year.", user_id: "u" })
            const brief = yield* memory.capture({
              content: "The door code is 4512 this week.",
              ttl: 2,
              user_id: "u"
            })
            const record = yield* memory.get(brief.umo_id)
            expect(Date.parse(record.expires_at!) - Date.parse(record.created_at)).toBeGreaterThan(1_900)
            expect(record.immutable).toBe(false)
            expect((yield* memory.list({ user_id: "u" })).items.map((m) => m.umo_id)).toContain(brief.umo_id)

            yield* sleep(2_100)
            expect(yield* failure(memory.get(brief.umo_id))).toBeInstanceOf(MemoryNotFound)
            const listed = yield* memory.list({ user_id: "u" })
            expect(listed.items.map((m) => m.umo_id)).toEqual([kept.umo_id])
            expect(listed.total_count).toBe(1)
            const found = yield* memory.search({ query: "door code", user_id: "u", limit: 10 })
            expect(found.results.map((m) => m.umo_id)).toEqual([kept.umo_id])

            const swept = yield* memory.sweepExpired
            const mine = swept.filter((s) => s.erasure.umo_ids.includes(brief.umo_id))
            expect(mine).toHaveLength(1)
            const keys = (yield* memory.signingKeys) as unknown as SigningKeySet
            const claims = yield* Effect.promise(() => verifyReceipt(mine[0]!.erasure.receipt, keys))
            expect(claims).toMatchObject({ type: "umo-erasure-receipt", reason: "expired", count: 1 })
            expect(claims.umo_ids).toEqual([brief.umo_id])
            const chain = yield* memory.chain({ limit: 1 })
            expect(chain.entries[0]).toMatchObject({ kind: "delete", umo_id: brief.umo_id })
            // Swept once: a second sweep finds nothing of it.
            expect((yield* memory.sweepExpired).flatMap((s) => s.erasure.umo_ids)).not.toContain(brief.umo_id)
          })
        )
    )

    it.effect("refuses an expiry in the past, and expires_at with ttl", () =>
      as("refusals")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const past = yield* failure(memory.capture({ content: "Old news.", expires_at: "2020-01-01" }))
          expect(past).toBeInstanceOf(InvalidRequest)
          expect((past as InvalidRequest).detail).toContain("expires_at: must be in the future")
          const both = yield* failure(
            memory.capture({ content: "Twice told.", expires_at: "2999-01-01", ttl: 60 })
          )
          expect((both as InvalidRequest).detail).toContain("expires_at, ttl")
          const batch = yield* memory.batch({
            items: [{ content: "Fine." }, { content: "Gone already.", expires_at: "2001-01-01T00:00:00Z" }]
          })
          expect(batch.results.map((r) => r.success)).toEqual([true, false])
          expect(batch.results[1]!.error?.detail).toContain("expires_at")
          expect((yield* memory.list()).items.map((m) => m.summary)).toEqual(["Fine."])
        })
      )
    )

    it.effect("an update of the expiry alone moves it in place; with new text the new version keeps it", () =>
      as("moves")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const first = yield* memory.capture({ content: "Parking is on level 3.", ttl: 60 })
          const moved = yield* memory.update(first.umo_id, { expires_at: "2999-06-01" })
          expect(moved.umo_id).toBe(first.umo_id)
          expect((yield* memory.get(first.umo_id)).expires_at).toBe("2999-06-01T00:00:00.000Z")
          expect((yield* memory.history(first.umo_id)).versions).toHaveLength(1)
          const next = yield* memory.update(first.umo_id, { content: "Parking is on level 4." })
          expect(next.supersedes).toEqual([first.umo_id])
          expect((yield* memory.get(next.umo_id)).expires_at).toBe("2999-06-01T00:00:00.000Z")
          yield* memory.update(next.umo_id, { expires_at: null })
          expect((yield* memory.get(next.umo_id)).expires_at).toBeNull()
          const superseded = yield* failure(memory.update(first.umo_id, { ttl: 30 }))
          expect((superseded as InvalidRequest).detail).toContain("is superseded by")
        })
      )
    )

    it.effect(
      "an immutable memory refuses updates and named supersessions, and is never inferred out of date",
      () =>
        as("immutable")(
          Effect.gen(function* () {
            const memory = yield* Memory
            const fixed = yield* memory.capture({
              content: "I live in Madrid.",
              user_id: "ana",
              immutable: true
            })
            expect((yield* memory.get(fixed.umo_id)).immutable).toBe(true)
            const updated = yield* failure(memory.update(fixed.umo_id, { content: "I live in Lisbon." }))
            expect((updated as InvalidRequest).detail).toContain("is immutable")
            const named = yield* failure(
              memory.capture({ content: "I live in Porto.", user_id: "ana", supersedes: [fixed.umo_id] })
            )
            expect((named as InvalidRequest).detail).toContain("is immutable")
            const inferred = yield* memory.capture({
              content: "I live in Lisbon now.",
              user_id: "ana",
              timestamp: "2030-01-01"
            })
            expect(inferred.supersedes).not.toContain(fixed.umo_id)
            expect((yield* memory.get(fixed.umo_id)).superseded_by).toBeNull()
            // Its expiry may still be moved, and it may still be deleted.
            yield* memory.update(fixed.umo_id, { ttl: 3600 })
            expect((yield* memory.forget(fixed.umo_id)).forgotten).toBe(true)
          })
        )
    )

    it.effect(
      "over time, nothing expired is returned and nothing unexpired is lost",
      () =>
        as("over-time")(
          Effect.gen(function* () {
            const memory = yield* Memory
            const run = Effect.runPromiseWith(yield* Effect.context<MemoryAccount>())
            let round = 0
            // Memories that expire in 0.4 to 1.6 s or never, read at three moments, swept or not before each.
            const cases = fc.record({
              ttls: fc.array(fc.option(fc.integer({ min: 4, max: 16 }), { nil: undefined }), {
                minLength: 1,
                maxLength: 6
              }),
              sweeps: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 })
            })
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(cases, async ({ ttls, sweeps }) => {
                  const user = `round-${round++}`
                  // ttl is whole seconds: tenths are set through expires_at.
                  const start = Date.now()
                  const items = ttls.map((tenths, i) => ({
                    content: `Note ${i} for ${user}: the locker is ${100 + i}.`,
                    user_id: user,
                    ...(tenths === undefined
                      ? {}
                      : { expires_at: new Date(start + 400 + tenths * 100).toISOString() })
                  }))
                  const { results } = await run(memory.batch({ items }))
                  const expiry = new Map(
                    results.map((r, i) => [
                      r.umo_id!,
                      items[i]!.expires_at === undefined ? Infinity : Date.parse(items[i]!.expires_at!)
                    ])
                  )
                  for (const sweep of sweeps) {
                    await new Promise((resolve) => setTimeout(resolve, 600))
                    if (sweep) await run(memory.sweepExpired)
                    const before = Date.now()
                    const listed = (await run(memory.list({ user_id: user, limit: 100 }))).items.map(
                      (m) => m.umo_id
                    )
                    const found = (
                      await run(memory.search({ query: "the locker", user_id: user, limit: 50 }))
                    ).results.map((m) => m.umo_id)
                    const after = Date.now()
                    for (const [face, ids] of [
                      ["list", listed],
                      ["search", found]
                    ] as const) {
                      expect.soft(face).toBeDefined()
                      // Nothing expired before the read began comes back.
                      for (const id of ids)
                        expect(expiry.get(id)!, `${face} returned ${id}`).toBeGreaterThan(before)
                      // Everything that outlives the read comes back (search collapses no two: the texts differ).
                      for (const [id, at] of expiry) if (at > after) expect(ids).toContain(id)
                    }
                  }
                }),
                { numRuns: 4 }
              )
            )
          })
        ),
      30_000
    )
  })
})
