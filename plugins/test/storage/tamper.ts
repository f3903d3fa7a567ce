import { randomUUID } from "node:crypto"
import type { Vitest } from "@effect/vitest"
import { AccountStore, Ledger, MemoryProvenance, MemoryStore, type Umo } from "@umo/core"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { expect } from "vitest"
import { recapture } from "./fixtures.js"

type Services = MemoryStore | MemoryProvenance | Ledger | AccountStore | SqlClient.SqlClient

type Table = "memories" | "memory_chunks" | "ledger_entries" | "ledger_checkpoints"

/** One way to change one field of one stored row, as an SQL assignment. */
interface Mutation {
  readonly table: Table
  readonly column: string
  /** `$other` stands for another account's id, `$random` for a new random UUID. */
  readonly set: string
}

const differentHash = (column: string) => `md5(${column}) || md5(${column})`
const bumpFirstComponent = `(SELECT ('[' || string_agg(CASE WHEN ord = 1 THEN (x + 0.5)::text ELSE x::text END, ',' ORDER BY ord) || ']')::vector
  FROM unnest(embedding::real[]) WITH ORDINALITY AS t(x, ord))`

/** Every field of every row that carries a memory or its chain, and a change to it. */
export const mutations: ReadonlyArray<Mutation> = [
  ...[
    ["content", "content || ' '"],
    ["summary", "summary || '!'"],
    ["entities", "jsonb_build_array(entities)"],
    ["svo_triples", "jsonb_build_array(svo_triples)"],
    ["topics", "jsonb_build_array(topics)"],
    ["tone", `jsonb_set(tone, '{score}', to_jsonb((tone->>'score')::float8 + 0.25))`],
    ["language", "language || 'x'"],
    ["quality_score", "quality_score + 0.001"],
    ["source", "coalesce(source, '') || 'x'"],
    ["content_time", "content_time + interval '1 millisecond'"],
    ["created_at", "created_at - interval '1 second'"],
    ["pipeline", "jsonb_build_array(pipeline)"],
    ["extensions", `extensions || '{"injected": true}'::jsonb`],
    ["content_hash", differentHash("content_hash")],
    ["semantic_hash", differentHash("semantic_hash")],
    ["record_hash", differentHash("record_hash")],
    ["embedding_model", "embedding_model || 'x'"],
    ["user_id", "coalesce(user_id, '') || 'x'"],
    ["agent_id", "coalesce(agent_id, '') || 'x'"],
    ["session_id", "coalesce(session_id, '') || 'x'"],
    ["metadata", `metadata || '{"injected": true}'::jsonb`],
    // Un-superseding a memory, or superseding it behind the chain's back, and moving when.
    ["superseded_by", "CASE WHEN superseded_by IS NULL THEN $random END"],
    ["superseded_at", "coalesce(superseded_at, now()) + interval '1 second'"]
  ].map(([column, set]) => ({ table: "memories" as const, column: column!, set: set! })),
  ...[
    ["chunk_index", "chunk_index + 1000"],
    ["start_offset", "start_offset + 1"],
    ["end_offset", "end_offset + 1"],
    ["embedding", bumpFirstComponent]
  ].map(([column, set]) => ({ table: "memory_chunks" as const, column: column!, set: set! })),
  ...[
    ["account_id", "$other"],
    ["seq", "seq + 1000"],
    ["kind", "CASE kind WHEN 'capture' THEN 'delete' ELSE 'capture' END"],
    ["umo_id", "$random"],
    ["content_hash", differentHash("content_hash")],
    ["semantic_hash", differentHash("semantic_hash")],
    ["record_hash", differentHash("record_hash")],
    ["superseded_by", "CASE WHEN superseded_by IS NULL THEN $random END"],
    ["recorded_at", "recorded_at || ' '"],
    ["prev_hash", differentHash("prev_hash")],
    ["entry_hash", differentHash("entry_hash")],
    ["signature", "signature || 'A'"],
    ["key_id", "key_id || 'x'"]
  ].map(([column, set]) => ({ table: "ledger_entries" as const, column: column!, set: set! })),
  ...[
    ["account_id", "$other"],
    ["seq", "seq + 1000"],
    ["entry_hash", differentHash("entry_hash")],
    ["signature", "signature || 'A'"],
    ["key_id", "key_id || 'x'"]
  ].map(([column, set]) => ({ table: "ledger_checkpoints" as const, column: column!, set: set! }))
]

const rowKey: Record<Table, string> = {
  memories: "umo_id::text",
  memory_chunks: "umo_id::text || '/' || chunk_index",
  ledger_entries: "seq::text",
  ledger_checkpoints: "seq::text"
}

/** The messages of an error and of its causes, the driver's own last. */
const messages = (error: unknown): string =>
  typeof error === "object" && error !== null
    ? `${String((error as { message?: unknown }).message)} ${messages((error as { cause?: unknown }).cause)}`
    : ""

const isSound = (p: Option.Option<{ valid: boolean; hash_chain_valid: boolean; chain_tampered: boolean }>) =>
  Option.isSome(p) && p.value.valid && p.value.hash_chain_valid && !p.value.chain_tampered

interface Scenario {
  readonly captures: number
  readonly deleteOne: boolean
  /** One more capture supersedes the oldest live one, so supersession rows and entries exist. */
  readonly supersedeOne: boolean
  readonly row: number
}

/**
 * Builds an account with some captures (and maybe a deletion), applies one mutation to one row,
 * and checks that it is detected: the owning memory's proof fails for memory and chunk rows;
 * the chain audit fails for ledger rows, and so does the proof of the memory a capture entry
 * belongs to. A bystander account's proofs stay valid. Returns false when the scenario has no
 * such row (e.g. no checkpoint yet), and "refused" when the database refuses the change itself:
 * Citus moves no row to another account's shard (its distribution column cannot be updated).
 */
const tamperAndDetect = (mutation: Mutation, scenario: Scenario, pool: ReadonlyArray<Umo>) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const provenance = yield* MemoryProvenance
    const ledger = yield* Ledger
    const accounts = yield* AccountStore
    const sql = yield* SqlClient.SqlClient
    const victim = (yield* accounts.ensureAccount(`victim-${crypto.randomUUID()}`)).account_id
    const other = (yield* accounts.ensureAccount(`other-${crypto.randomUUID()}`)).account_id
    const bystander = (yield* accounts.ensureAccount(`bystander-${crypto.randomUUID()}`)).account_id
    const bystanderUmo = recapture(pool[0]!)
    yield* store.insert(bystander, bystanderUmo)
    const live: Array<string> = []
    for (let i = 0; i < scenario.captures; i++) {
      const u = recapture(pool[(scenario.row + i) % pool.length]!)
      yield* store.insert(victim, u)
      live.push(u.umo_id)
    }
    if (scenario.deleteOne && live.length > 1) yield* store.remove(victim, live.shift()!)
    if (scenario.supersedeOne && live.length > 0) {
      const newer = recapture(pool[scenario.row % pool.length]!)
      yield* store.insertMany(victim, [
        { umo: newer, supersedes: [live[0]!], facts: [], inferUpdates: false }
      ])
      live.push(newer.umo_id)
    }

    const keys = yield* sql<{ key: string }>`
      SELECT ${sql.unsafe(rowKey[mutation.table])} AS key FROM ${sql(mutation.table)} WHERE account_id = ${victim} ORDER BY 1`
    if (keys.length === 0) return false
    const key = keys[scenario.row % keys.length]!.key
    // The new value is computed first and written as a value, as an attacker's client would: Citus
    // runs no volatile function, nor a stable one of a column, in an UPDATE of a distributed table.
    const set = mutation.set
      .replace("$other", `'${other}'::uuid`)
      .replace("$random", `'${randomUUID()}'::uuid`)
    const [changed] = yield* sql<{ value: string | null; type: string }>`
      SELECT (${sql.unsafe(set)})::text AS value, pg_typeof(${sql.unsafe(set)})::text AS type FROM ${sql(mutation.table)}
      WHERE account_id = ${victim} AND ${sql.unsafe(rowKey[mutation.table])} = ${key}`
    const updated = yield* sql`
      UPDATE ${sql(mutation.table)} SET ${sql(mutation.column)} = ${changed!.value}::${sql.unsafe(changed!.type)}
      WHERE account_id = ${victim} AND ${sql.unsafe(rowKey[mutation.table])} = ${key} RETURNING 1 AS changed`.pipe(
      Effect.catchIf(
        (error) => messages(error).includes("modifying the partition value of rows is not allowed"),
        () => Effect.succeed("refused" as const)
      )
    )
    if (updated === "refused") return "refused" as const
    expect(updated).toHaveLength(1)

    if (mutation.table === "memories" || mutation.table === "memory_chunks") {
      const owner = key.split("/")[0]!
      expect(
        isSound(yield* provenance.proof(victim, owner)),
        `${mutation.table}.${mutation.column} undetected`
      ).toBe(false)
    } else {
      expect(
        (yield* ledger.audit(victim)).valid,
        `${mutation.table}.${mutation.column} passes the audit`
      ).toBe(false)
      if (mutation.table === "ledger_entries") {
        const [entry] = yield* sql<{ umo_id: string; kind: string }>`
          SELECT umo_id::text AS umo_id, kind FROM ledger_entries
          WHERE ${sql.unsafe("seq::text")} = ${key} AND account_id = ${mutation.column === "account_id" ? other : victim}`
        const original = mutation.column === "umo_id" || mutation.column === "kind" ? undefined : entry
        if (original && live.includes(original.umo_id) && original.kind === "capture") {
          expect(
            isSound(yield* provenance.proof(victim, original.umo_id)),
            `${mutation.column} of a capture entry undetected`
          ).toBe(false)
        }
      }
    }
    expect(isSound(yield* provenance.proof(bystander, bystanderUmo.umo_id))).toBe(true)
    return true
  })

export const tamperCases = (it: Vitest.MethodsNonLive<Services>, pool: () => ReadonlyArray<Umo>) => {
  it.effect(`detects a change to each of ${mutations.length} stored fields`, () =>
    Effect.gen(function* () {
      const tested: Array<string> = []
      const refused: Array<string> = []
      for (const mutation of mutations) {
        const outcome = yield* tamperAndDetect(
          mutation,
          { captures: 5, deleteOne: true, supersedeOne: true, row: 1 },
          pool()
        )
        if (outcome === "refused") refused.push(`${mutation.table}.${mutation.column}`)
        else if (outcome) tested.push(`${mutation.table}.${mutation.column}`)
      }
      console.log(`tamper cases detected (${tested.length}): ${tested.join(", ")}`)
      if (refused.length > 0) console.log(`refused by the database itself: ${refused.join(", ")}`)
      // Only a move to another account may be refused, and only by Citus (its distribution column).
      expect(refused.every((r) => r.endsWith(".account_id"))).toBe(true)
      expect(tested.length + refused.length).toBe(mutations.length)
    })
  )

  it.effect("detects any single-field mutation of any stored row (property)", () =>
    Effect.gen(function* () {
      const run = Effect.runPromiseWith(yield* Effect.context<Services>())
      let applied = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...mutations),
            fc.record({
              captures: fc.integer({ min: 1, max: 6 }),
              deleteOne: fc.boolean(),
              supersedeOne: fc.boolean(),
              row: fc.nat(20)
            }),
            async (mutation, scenario) => {
              if ((await run(tamperAndDetect(mutation, scenario, pool()))) === true) applied++
            }
          ),
          { numRuns: 100 }
        )
      )
      console.log(`single-field mutations applied and detected: ${applied} of 100 runs`)
      expect(applied).toBeGreaterThan(50)
    })
  )
}
