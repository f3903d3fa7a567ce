import { statSync } from "node:fs"
import { it } from "@effect/vitest"
import { AccountStore, Ledger, MemoryProvenance, MemoryStore } from "@umo/core"
import { Database } from "@umo/plugins"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it as plainIt } from "vitest"
import { type CitusCluster, citusCluster, citusUnavailable, multiShardStatements } from "./CitusCluster.js"
import { storageContract } from "./contract.js"
import { capturedPool, recapture, storageLayer } from "./fixtures.js"
import { reembeddingScenario } from "./reembedding.js"

// Citus is built from a fetched snapshot by scripts/citus-cluster.sh; where it is not installed,
// every test here is skipped, and the reason is printed and named in the suite's title.
const unavailable = citusUnavailable()
if (unavailable !== undefined) console.warn(`Citus tests skipped: ${unavailable}`)

/**
 * The statements that are meant to run on every shard: none serves a request of one account.
 * Each is named by a fragment of its text and the reason it fans out.
 */
const deliberateFanOuts: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^SELECT account_id::text AS account_id FROM search_totals WHERE documents > 0 ORDER BY documents DESC/,
    "the in-process index's preload lists the accounts by size, once, in the background after start"
  ]
]

describe.skipIf(unavailable !== undefined)(
  `Citus${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`,
  () => {
    let cluster: CitusCluster
    let logFrom = 0
    beforeAll(async () => {
      cluster = await citusCluster(2)
      // Every statement the coordinator runs on several shards is logged, with its text.
      await cluster.query(
        cluster.coordinatorPort,
        "ALTER SYSTEM SET citus.multi_task_query_log_level = 'log'"
      )
      await cluster.query(cluster.coordinatorPort, "ALTER SYSTEM SET log_min_error_statement = 'log'")
      await cluster.query(cluster.coordinatorPort, "SELECT pg_reload_conf()")
    }, 600_000)
    afterAll(async () => {
      await cluster?.down()
    }, 120_000)

    const stack = storageLayer(
      Layer.unwrap(
        Effect.sync(() => {
          // Start-up (migrations, distribution, the index's preload) fans out by design; what
          // follows it is checked.
          logFrom = statSync(cluster.log).size
          return Database.postgres(cluster.url)
        })
      )
    )

    storageContract("Citus, by account", stack)

    describe("distributed by account", () => {
      it.layer(stack, { timeout: "300 seconds" })((it) => {
        it.effect("keeps reference, distributed and coordinator tables as designed", () =>
          Effect.gen(function* () {
            const rows = yield* Effect.promise(() =>
              cluster.query(
                cluster.coordinatorPort,
                `SELECT string_agg(logicalrelid::text || ':' || partmethod::text || ':' || colocationid, ' ' ORDER BY logicalrelid::text)
               FROM pg_dist_partition`
              )
            )
            const tables = new Map(
              rows.split(" ").map((r) => [r.split(":")[0]!, r.split(":").slice(1)] as const)
            )
            for (const name of ["accounts", "api_keys", "signing_keys", "store_settings"])
              expect(tables.get(name)?.[0], name).toBe("n")
            const colocation = tables.get("memories")?.[1]
            for (const name of [
              "memories",
              "memory_chunks",
              "ledger_entries",
              "ledger_heads",
              "search_terms",
              "webhooks"
            ])
              expect(tables.get(name), name).toEqual(["h", colocation])
            expect(tables.has("rate_buckets")).toBe(false)
            expect(tables.has("umo_migrations")).toBe(false)
          })
        )

        it.effect("routes an account's read to one shard (EXPLAIN: one task, a router plan)", () =>
          Effect.gen(function* () {
            const accounts = yield* AccountStore
            const account = (yield* accounts.ensureAccount(`explain-${crypto.randomUUID()}`)).account_id
            const plan = yield* Effect.promise(() =>
              cluster.query(
                cluster.coordinatorPort,
                `EXPLAIN (COSTS OFF) SELECT umo_id FROM memories WHERE account_id = '${account}'
               ORDER BY created_at DESC LIMIT 10`
              )
            )
            expect(plan).toContain("Custom Scan (Citus Adaptive)")
            expect(plan).toContain("Task Count: 1")
          })
        )

        it.effect("keeps an account's chain and proofs valid after its shard moves to another worker", () =>
          Effect.gen(function* () {
            const accounts = yield* AccountStore
            const store = yield* MemoryStore
            const ledger = yield* Ledger
            const provenance = yield* MemoryProvenance
            const pool = yield* capturedPool
            const account = (yield* accounts.ensureAccount(`moving-${crypto.randomUUID()}`)).account_id
            const ids: Array<string> = []
            for (let i = 0; i < 6; i++) {
              const umo = recapture(pool[i % pool.length]!)
              yield* store.insert(account, umo)
              ids.push(umo.umo_id)
            }
            const where = () =>
              cluster.query(
                cluster.coordinatorPort,
                `SELECT s.shardid || ' ' || p.nodeport FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid)
               JOIN pg_dist_node p ON p.groupid = pl.groupid
               WHERE s.shardid = get_shard_id_for_distribution_column('memories', '${account}')`
              )
            const [shard, from] = (yield* Effect.promise(where)).split(" ")
            const to = cluster.workerPorts.find((p) => String(p) !== from)!
            yield* Effect.promise(() =>
              cluster.query(
                cluster.coordinatorPort,
                `SELECT citus_move_shard_placement(${shard}, '127.0.0.1', ${from}, '127.0.0.1', ${to},
                 shard_transfer_mode => 'block_writes')`
              )
            )
            expect((yield* Effect.promise(where)).split(" ")[1]).toBe(String(to))
            expect(yield* ledger.audit(account)).toEqual({ entries: 6, valid: true })
            for (const id of ids) {
              const proof = Option.getOrThrow(yield* provenance.proof(account, id))
              expect(proof.valid && proof.hash_chain_valid && !proof.chain_tampered).toBe(true)
            }
            // And it goes on: a capture after the move chains onto the moved head.
            yield* store.insert(account, recapture(pool[0]!))
            expect(yield* ledger.audit(account)).toEqual({ entries: 7, valid: true })
          })
        )

        it.effect("keeps BM25's term statistics with writes routed on the workers, equal to a count", () =>
          Effect.gen(function* () {
            const accounts = yield* AccountStore
            const store = yield* MemoryStore
            const pool = yield* capturedPool
            const account = (yield* accounts.ensureAccount(`terms-${crypto.randomUUID()}`)).account_id
            for (let i = 0; i < 8; i++) yield* store.insert(account, recapture(pool[i % pool.length]!))
            // The trigger's routed version (one multi-row INSERT … VALUES per table) is on every worker.
            const routed = yield* Effect.promise(() =>
              cluster.query(
                cluster.coordinatorPort,
                `SELECT string_agg(result, ' ') FROM run_command_on_workers(
                   $$SELECT count(*) FROM pg_proc WHERE proname = 'memories_search_stats'
                     AND prosrc LIKE '%umo: routed on Citus%'$$)`
              )
            )
            expect(routed).toBe(cluster.workerPorts.map(() => "1").join(" "))
            // What the trigger kept, against a count over the memories themselves.
            const mismatches = yield* Effect.promise(() =>
              cluster.query(
                cluster.coordinatorPort,
                `WITH counted AS (
                   SELECT u.lexeme, count(*) AS documents FROM memories m, unnest(m.search) u
                   WHERE m.account_id = '${account}' GROUP BY 1),
                 kept AS (SELECT lexeme, documents FROM search_terms WHERE account_id = '${account}')
                 SELECT (SELECT count(*) FROM counted FULL JOIN kept USING (lexeme)
                         WHERE counted.documents IS DISTINCT FROM kept.documents)
                   || ' ' || (SELECT count(*) FROM counted)
                   || ' ' || (SELECT count(*) = (SELECT sum(documents) FROM counted)
                              FROM search_postings WHERE account_id = '${account}')
                   || ' ' || (SELECT documents FROM search_totals WHERE account_id = '${account}')`
              )
            )
            const [wrong, terms, postings, documents] = mismatches.split(" ")
            expect(wrong).toBe("0")
            expect(Number(terms)).toBeGreaterThan(10)
            expect(postings).toBe("true")
            expect(documents).toBe("8")
          })
        )

        it("ran every statement of the storage contract on one shard group, but the deliberate fan-outs", () => {
          const statements = multiShardStatements(cluster.log, logFrom)
          const unexpected = statements.filter((s) => !deliberateFanOuts.some(([pattern]) => pattern.test(s)))
          expect(unexpected).toEqual([])
        })
      })
    })

    // Last: it moves the whole store to another model (the stack above keeps the first one's).
    describe("re-embedding", () => {
      plainIt(
        "re-embeds every account's memories, resumes after an interruption and switches, proofs valid",
        () =>
          reembeddingScenario(() => Database.postgres(cluster.url), ["memory_chunks_embedding_hnsw_12"], {
            follower: true
          }),
        600_000
      )
    })
  }
)
