import { generateKeyPairSync } from "node:crypto"
import { it } from "@effect/vitest"
import {
  AccountStore,
  Ledger,
  MemoryProvenance,
  MemoryStore,
  StoreError,
  type Umo,
  verifyEntry,
  verifyProof,
  verifyReceipt
} from "@umo/core"
import { Database, SigningKey, SqlKeyRing, StorageStack } from "@umo/plugins"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import type { JWK } from "jose"
import { describe, expect } from "vitest"
import { capturedPool, recapture, TestEmbedder } from "./fixtures.js"
import { scratchDatabase } from "./ScratchDatabase.js"

type Stack = MemoryStore | MemoryProvenance | Ledger | AccountStore

const newPem = () =>
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

const keyOf = (pem: string) => SigningKey.load({ dataDir: "/nonexistent", pem })

/** A "server process": the storage stack with its own signing key, on a database another shares. */
const startProcess = (sql: SqlClient.SqlClient, pem: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const services = yield* Layer.buildWithScope(
      StorageStack.layer({
        database: Layer.succeed(SqlClient.SqlClient)(sql),
        signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem }),
        embedder: TestEmbedder,
        ledger: { checkpointInterval: 4 }
      }),
      scope
    ).pipe(Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))))
    const run = <A, E>(effect: Effect.Effect<A, E, Stack>) => Effect.provide(effect, services)
    return { pem, run, stop: Scope.close(scope, Exit.void) }
  })

type Process = Effect.Success<ReturnType<typeof startProcess>>

const isSound = (p: Option.Option<{ valid: boolean; hash_chain_valid: boolean; chain_tampered: boolean }>) =>
  Option.isSome(p) && p.value.valid && p.value.hash_chain_valid && !p.value.chain_tampered

const retired = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some(
    (r) => r._tag === "Fail" && r.error instanceof StoreError && r.error.reason === "SigningKeyRetired"
  )

const Step = fc.oneof(
  fc.record({ op: fc.constant("capture" as const), p: fc.nat(1), text: fc.nat(7) }),
  fc.record({ op: fc.constant("delete" as const), p: fc.nat(1), pick: fc.nat(20) }),
  fc.record({ op: fc.constant("proof" as const), p: fc.nat(1), pick: fc.nat(20) }),
  fc.record({ op: fc.constant("rotate" as const), p: fc.nat(1) }),
  fc.record({ op: fc.constant("restart" as const), p: fc.nat(1) })
)

const rotationSuite = <E>(name: string, database: Layer.Layer<SqlClient.SqlClient, E>) =>
  describe(`signing keys on ${name}`, () => {
    it.layer(database, { timeout: "240 seconds" })((it) => {
      let pool: ReadonlyArray<Umo> = []
      /** The key that signs now, and the first key the database ever had (what a verifier pinned). */
      let current = newPem()
      let first: JWK | undefined

      it.effect("registers the first key, and refuses a process with another key, naming the key", () =>
        Effect.gen(function* () {
          pool = yield* capturedPool
          const sql = yield* SqlClient.SqlClient
          const a = yield* startProcess(sql, current)
          first = (yield* keyOf(current)).publicJwk
          const account = (yield* a.run(Effect.flatMap(AccountStore, (s) => s.ensureAccount("keys"))))
            .account_id
          yield* a.run(Effect.flatMap(MemoryStore, (s) => s.insert(account, recapture(pool[0]!))))
          const other = yield* keyOf(newPem())
          const refused = yield* Effect.exit(startProcess(sql, newPem()))
          expect(Exit.isFailure(refused)).toBe(true)
          const message = String(Exit.isFailure(refused) ? refused.cause.reasons[0] : "")
          expect(message).toContain(`signed with the key ${first.kid!.slice(0, 12)}`)
          expect(message).toMatch(/same UMO_SIGNING_KEY/)
          expect(message).not.toContain(other.keyId.slice(0, 12))
          // The same key in another process is welcome.
          const b = yield* startProcess(sql, current)
          yield* b.stop
          yield* a.stop
        })
      )

      it.effect(
        "gives only valid proofs over any interleaving of captures, deletes, proofs and rotations across two processes (property)",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const context = yield* Effect.context<SqlClient.SqlClient>()
            const run = Effect.runPromiseWith(context)
            let steps = 0
            let rotations = 0
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 14 }), (plan) =>
                  run(
                    Effect.gen(function* () {
                      const processes: Array<Process> = [
                        yield* startProcess(sql, current),
                        yield* startProcess(sql, current)
                      ]
                      const account = (yield* processes[0]!.run(
                        Effect.flatMap(AccountStore, (s) => s.ensureAccount(`rot-${crypto.randomUUID()}`))
                      )).account_id
                      const live: Array<string> = []
                      const receipts: Array<string> = []
                      for (const step of plan) {
                        steps += 1
                        const p = processes[step.p]!
                        const signs = p.pem === current
                        if (step.op === "capture") {
                          const umo = recapture(pool[step.text % pool.length]!)
                          const exit = yield* Effect.exit(
                            p.run(Effect.flatMap(MemoryStore, (s) => s.insert(account, umo)))
                          )
                          if (signs) {
                            expect(Exit.isSuccess(exit)).toBe(true)
                            live.push(umo.umo_id)
                          } else {
                            // A process holding a retired key must not sign: nothing is stored.
                            expect(retired(exit)).toBe(true)
                            const stored = yield* p.run(
                              Effect.flatMap(MemoryStore, (s) => s.get(account, umo.umo_id))
                            )
                            expect(Option.isNone(stored)).toBe(true)
                          }
                        } else if (step.op === "delete" && live.length > 0) {
                          const umoId = live[step.pick % live.length]!
                          const exit = yield* Effect.exit(
                            p.run(Effect.flatMap(MemoryStore, (s) => s.remove(account, umoId)))
                          )
                          if (signs) {
                            expect(Exit.isSuccess(exit)).toBe(true)
                            if (Exit.isSuccess(exit)) receipts.push(Option.getOrThrow(exit.value).receipt)
                            live.splice(live.indexOf(umoId), 1)
                          } else {
                            expect(retired(exit)).toBe(true)
                          }
                        } else if (step.op === "proof" && live.length > 0) {
                          const umoId = live[step.pick % live.length]!
                          expect(
                            isSound(
                              yield* p.run(Effect.flatMap(MemoryProvenance, (s) => s.proof(account, umoId)))
                            )
                          ).toBe(true)
                        } else if (step.op === "rotate") {
                          const next = newPem()
                          const exit = yield* Effect.exit(
                            Effect.all([keyOf(p.pem), keyOf(next)]).pipe(
                              Effect.flatMap(([from, to]) => SqlKeyRing.rotate(from, to))
                            )
                          )
                          // Only the key that signs now can hand over.
                          expect(Exit.isSuccess(exit)).toBe(signs)
                          if (signs) {
                            current = next
                            rotations += 1
                          }
                        } else if (step.op === "restart") {
                          yield* p.stop
                          processes[step.p] = yield* startProcess(sql, current)
                        }
                      }
                      for (const p of processes) {
                        for (const umoId of live) {
                          const proof = yield* p.run(
                            Effect.flatMap(MemoryProvenance, (s) => s.proof(account, umoId))
                          )
                          expect(isSound(proof)).toBe(true)
                          // Offline, from the first key ever pinned, following the rotations the proof carries.
                          expect(verifyProof(Option.getOrThrow(proof), first!)).toBe(true)
                        }
                        expect((yield* p.run(Effect.flatMap(Ledger, (l) => l.audit(account)))).valid).toBe(
                          true
                        )
                        yield* p.stop
                      }
                      const keySet = yield* (yield* startProcess(sql, current)).run(
                        Effect.flatMap(Ledger, (l) => l.signingKeys)
                      )
                      for (const receipt of receipts) {
                        const claims = yield* Effect.promise(() =>
                          verifyReceipt(receipt, first!, keySet.rotations)
                        )
                        expect(verifyEntry(claims.entry, first!, keySet.rotations)).toBe(true)
                      }
                    })
                  )
                ),
                { numRuns: 25 }
              )
            )
            console.log(`key rotation property: ${steps} steps over 25 runs, ${rotations} rotations`)
            expect(rotations).toBeGreaterThan(0)
          })
      )

      it.effect("lets a rotation land in the middle of concurrent captures without a false alarm", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const processes = [yield* startProcess(sql, current), yield* startProcess(sql, current)]
          const account = (yield* processes[0]!.run(
            Effect.flatMap(AccountStore, (s) => s.ensureAccount(`race-${crypto.randomUUID()}`))
          )).account_id
          const next = newPem()
          const capture = (i: number) =>
            Effect.exit(
              processes[i % 2]!.run(
                Effect.flatMap(MemoryStore, (s) => s.insert(account, recapture(pool[i % pool.length]!)))
              )
            )
          const rotation = Effect.all([keyOf(current), keyOf(next)]).pipe(
            Effect.flatMap(([from, to]) => SqlKeyRing.rotate(from, to)),
            Effect.as("rotated" as const)
          )
          const outcomes = yield* Effect.all(
            [
              ...Array.from({ length: 30 }, (_, i) => capture(i)),
              rotation,
              ...Array.from({ length: 30 }, (_, i) => capture(30 + i))
            ],
            { concurrency: 12 }
          )
          current = next
          const exits = outcomes.filter((o) => o !== "rotated")
          // Each capture landed signed with the old key before the rotation, or was refused whole.
          expect(exits.every((e) => Exit.isSuccess(e) || retired(e))).toBe(true)
          const stored = exits.filter(Exit.isSuccess).map((e) => e.value.entry.umo_id)
          for (const p of processes) yield* p.stop
          const fresh = yield* startProcess(sql, current)
          yield* fresh.run(Effect.flatMap(MemoryStore, (s) => s.insert(account, recapture(pool[0]!))))
          for (const umoId of stored) {
            expect(
              isSound(yield* fresh.run(Effect.flatMap(MemoryProvenance, (s) => s.proof(account, umoId))))
            ).toBe(true)
          }
          expect(yield* fresh.run(Effect.flatMap(Ledger, (l) => l.audit(account)))).toEqual({
            entries: stored.length + 1,
            valid: true
          })
          console.log(
            `rotation during captures: ${stored.length} of 60 landed, ${60 - stored.length} refused`
          )
          yield* fresh.stop
        })
      )

      it.effect("serves current and retired keys, and detects any changed field of a key row", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const p = yield* startProcess(sql, current)
          const keySet = yield* p.run(Effect.flatMap(Ledger, (l) => l.signingKeys))
          const ring = yield* sql<{
            seq: number
            key_id: string
          }>`SELECT seq, key_id FROM signing_keys ORDER BY seq`
          expect(ring.length).toBeGreaterThan(1)
          expect(keySet.keys.map((k) => k.kid)).toEqual(ring.map((r) => r.key_id).reverse())
          expect(keySet.rotations).toHaveLength(ring.length)
          expect(keySet.keys[0]!.kid).toBe((yield* keyOf(current)).keyId)

          const account = (yield* p.run(
            Effect.flatMap(AccountStore, (s) => s.ensureAccount(`tamper-${crypto.randomUUID()}`))
          )).account_id
          const umo = recapture(pool[1]!)
          yield* p.run(Effect.flatMap(MemoryStore, (s) => s.insert(account, umo)))
          const sound = () =>
            Effect.map(p.run(Effect.flatMap(MemoryProvenance, (s) => s.proof(account, umo.umo_id))), isSound)
          const audited = () =>
            Effect.map(p.run(Effect.flatMap(Ledger, (l) => l.audit(account))), (a) => a.valid)
          expect(yield* sound()).toBe(true)
          const changes = [
            ["seq", "seq + 1000"],
            ["key_id", "key_id || 'x'"],
            ["record", 'replace(record, \'"signature":"\', \'"signature":"A\')'],
            ["record", 'replace(record, \'"payload":"\', \'"payload":"e\')']
          ] as const
          let detected = 0
          for (const row of ring) {
            for (const [column, set] of changes) {
              const [before] = yield* sql<{ seq: number; key_id: string; record: string }>`
                SELECT seq, key_id, record FROM signing_keys WHERE seq = ${row.seq}`
              yield* sql`UPDATE signing_keys SET ${sql(column)} = ${sql.unsafe(set)} WHERE seq = ${row.seq}`
              expect(yield* sound(), `signing_keys.${column} of key ${row.seq}`).toBe(false)
              expect(yield* audited(), `signing_keys.${column} of key ${row.seq}`).toBe(false)
              detected += 1
              yield* sql`DELETE FROM signing_keys WHERE key_id = ${before!.key_id} OR seq = ${before!.seq} OR seq = ${before!.seq + 1000}`
              yield* sql`INSERT INTO signing_keys ${sql.insert(before!)}`
              expect(yield* sound()).toBe(true)
            }
          }
          // A row added behind the service's back, naming a key nobody endorsed.
          const intruder = yield* keyOf(newPem())
          yield* sql`INSERT INTO signing_keys ${sql.insert({ seq: ring.length + 1, key_id: intruder.keyId, record: "{}" })}`
          expect(yield* sound()).toBe(false)
          const refused = yield* Effect.exit(startProcess(sql, current))
          expect(String(Exit.isFailure(refused) ? refused.cause.reasons[0] : "")).toMatch(
            /changed outside UMO/
          )
          yield* sql`DELETE FROM signing_keys WHERE seq = ${ring.length + 1}`
          expect(yield* sound()).toBe(true)
          console.log(`key rows: ${detected} single-field changes detected over ${ring.length} keys`)
          yield* p.stop
        })
      )
    })
  })

rotationSuite("PGlite", Database.pglite())

const url = process.env["UMO_TEST_DATABASE_URL"]
describe.runIf(url)("PostgreSQL", () => {
  rotationSuite(
    "PostgreSQL",
    scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_rotation_${process.pid}`).layer
  )
})
