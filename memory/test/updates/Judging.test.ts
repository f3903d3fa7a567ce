import { it } from "@effect/vitest"
import {
  type AccountStore,
  Embedder,
  genesisHash,
  type JudgedPair,
  makeEmbedder,
  type SigningKeySet,
  UpdateJudgeError,
  type UpdateJudgeShape,
  verifyEntry
} from "@umo/core"
import { Memory } from "@umo/memory"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { as, testMemory } from "../support/TestMemory.js"

// A judge that never answers is given up on after this long (default 5 s).
process.env["UMO_JUDGE_TIMEOUT_MS"] = "300"

/** Every text near every other: each capture's neighbours are all the memories of its scope. */
const NearEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-near", dimensions: 4, maxChunkChars: 200 },
    embedBatch: (texts) => Effect.succeed(texts.map((t) => [1, 0.1 * (t.length % 3), 0.05, 0.02]))
  })
)

/**
 * Judges for the rules of capture, not of a model: one that says every newer memory outdates every
 * earlier one (so anything a capture could reach, it would supersede), one that follows a marker,
 * one that fails, and one that never answers.
 */
const judges = {
  always: { name: "always", threshold: 0.5, score: (pairs) => Effect.succeed(pairs.map(() => 1)) },
  marked: {
    name: "marked",
    threshold: 0.5,
    score: (pairs: ReadonlyArray<JudgedPair>) =>
      Effect.succeed(pairs.map((p) => (p.newer.includes("NEW") ? 0.9 : 0.1)))
  },
  failing: {
    name: "failing",
    threshold: 0.5,
    score: () => Effect.fail(new UpdateJudgeError({ judge: "failing", detail: "the model crashed" }))
  },
  silent: { name: "silent", threshold: 0.5, score: () => Effect.never }
} satisfies Record<string, UpdateJudgeShape>

const withJudge = (judge: UpdateJudgeShape) => testMemory(NearEmbedder, { updateJudge: judge })

const scopes = [{ user_id: "u1" }, { user_id: "u2" }, { agent_id: "bot" }, {}] as const
const scopeKey = (m: { user_id: string | null; agent_id: string | null }) =>
  m.user_id !== null ? `user:${m.user_id}` : m.agent_id !== null ? `agent:${m.agent_id}` : "account"

describe("capture with an update judge", () => {
  it.layer(withJudge(judges.always), { timeout: "300 seconds" })((it) => {
    it.effect(
      "never supersedes across scopes or accounts, and the chain stays verifiable, whatever the judge says",
      () =>
        Effect.gen(function* () {
          const memory = yield* Memory
          const run = Effect.runPromiseWith(yield* Effect.context<Memory | AccountStore>())
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(
                  fc.record({
                    account: fc.constantFrom("a", "b"),
                    scope: fc.integer({ min: 0, max: scopes.length - 1 }),
                    day: fc.integer({ min: 1, max: 28 }),
                    batch: fc.boolean()
                  }),
                  { minLength: 2, maxLength: 8 }
                ),
                async (captures) => {
                  const tag = crypto.randomUUID().slice(0, 8)
                  const account = (a: string) => `judge-${a}-${tag}`
                  const owner = new Map<string, string>()
                  for (const [i, c] of captures.entries()) {
                    const request = {
                      content: `Note ${i} of ${tag}.`,
                      timestamp: `2024-01-${String(c.day).padStart(2, "0")}T00:00:00Z`,
                      ...scopes[c.scope]
                    }
                    const ids = c.batch
                      ? (
                          await run(
                            as(account(c.account))(
                              memory.batch({
                                items: [request, { ...request, content: `Also ${i} of ${tag}.` }]
                              })
                            )
                          )
                        ).results.map((r) => r.umo_id!)
                      : [(await run(as(account(c.account))(memory.capture(request)))).umo_id]
                    for (const id of ids) owner.set(id, c.account)
                  }
                  for (const name of ["a", "b"]) {
                    const inAccount = [...owner].filter(([, a]) => a === name).map(([id]) => id)
                    const records = await Promise.all(
                      inAccount.map((id) => run(as(account(name))(memory.get(id))))
                    )
                    const byId = new Map(records.map((r) => [r.umo_id, r]))
                    for (const r of records) {
                      if (r.superseded_by === null) continue
                      // Its successor is of its own account (found there) and of its own scope.
                      const newer = byId.get(r.superseded_by)
                      expect(newer, `${r.umo_id} superseded by a memory of another account`).toBeDefined()
                      expect(scopeKey(newer!)).toBe(scopeKey(r))
                      expect(Date.parse(newer!.timestamp) >= Date.parse(r.timestamp)).toBe(true)
                    }
                    // Every judge that says yes to all of one scope leaves exactly one current memory in it.
                    for (const key of new Set(records.map(scopeKey)))
                      expect(
                        records.filter((r) => scopeKey(r) === key && r.superseded_by === null)
                      ).toHaveLength(1)
                    const chain = await run(as(account(name))(memory.chain({ limit: 100 })))
                    const keys = (await run(memory.signingKeys)) as unknown as SigningKeySet
                    chain.entries.forEach((entry, i) => {
                      expect(verifyEntry(entry, keys)).toBe(true)
                      expect(entry.prev_hash).toBe(chain.entries[i + 1]?.entry_hash ?? genesisHash)
                    })
                    for (const id of inAccount) {
                      const proof = await run(as(account(name))(memory.proof(id)))
                      expect(proof.valid).toBe(true)
                    }
                  }
                }
              ),
              { numRuns: 12 }
            )
          )
        })
    )
  })

  it.layer(withJudge(judges.marked), { timeout: "120 seconds" })((it) => {
    it.effect("supersedes what the judge scores at its threshold, older imports included", () =>
      as("judge-marked")(
        Effect.gen(function* () {
          const memory = yield* Memory
          const old = yield* memory.capture({
            content: "I live in Tooting.",
            user_id: "ana",
            timestamp: "2023-01-01T00:00:00Z"
          })
          const keep = yield* memory.capture({
            content: "My sister lives in Leeds.",
            user_id: "ana",
            timestamp: "2023-02-01T00:00:00Z"
          })
          expect(keep.supersedes).toEqual([])
          // "marked" says a newer memory marked NEW outdates every earlier one; the one above had no mark.
          const fresh = yield* memory.capture({
            content: "NEW keys to the flat in Greenwich!",
            user_id: "ana",
            timestamp: "2023-06-01T00:00:00Z"
          })
          expect([...fresh.supersedes].sort()).toEqual([old.umo_id, keep.umo_id].sort())
          expect((yield* memory.get(old.umo_id)).superseded_by).toBe(fresh.umo_id)
          // Content older than a stored memory that outdates it: superseded at once.
          const back = yield* memory.capture({
            content: "I lived in Croydon.",
            user_id: "ana",
            timestamp: "2022-01-01T00:00:00Z"
          })
          expect(back.superseded_by).toBe(fresh.umo_id)
          expect(back.warnings).toBeUndefined()
        })
      )
    )
  })

  for (const name of ["failing", "silent"] as const)
    it.layer(
      withJudge(judges[name]),
      // The real clock: the judge is given up on after a real 300 ms.
      { timeout: "120 seconds", excludeTestServices: true }
    )((it) => {
      it.effect(`keeps the capture with a warning and supersedes nothing when the judge is ${name}`, () =>
        as(`judge-${name}`)(
          Effect.gen(function* () {
            const memory = yield* Memory
            const first = yield* memory.capture({
              content: "I live in Tooting.",
              user_id: "ana",
              timestamp: "2023-01-01T00:00:00Z"
            })
            const second = yield* memory.capture({
              content: "Two weeks of rain and the roof held up.",
              user_id: "ana",
              timestamp: "2023-06-01T00:00:00Z"
            })
            expect(second.supersedes).toEqual([])
            expect(second.warnings?.[0]).toMatch(
              name === "failing" ? /the model crashed.*no update was inferred/ : /did not answer within/
            )
            for (const id of [first.umo_id, second.umo_id])
              expect((yield* memory.get(id)).superseded_by).toBeNull()
            const batch = yield* memory.batch({ items: [{ content: "A third note.", user_id: "ana" }] })
            expect(batch.results[0]?.success).toBe(true)
            expect(batch.results[0]?.warnings?.length).toBe(1)
          })
        )
      )
    })
})
