import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Small tables that every node needs and that are written rarely: copied to every worker.
 * `api_keys` is looked up by key hash before the account is known, so it cannot be split by
 * account; its unique indexes hold because every node has all of it.
 */
const referenceTables = ["accounts", "api_keys", "signing_keys", "store_settings"] as const

/**
 * Every table keyed by account, distributed by `account_id` and colocated with `memories`: all the
 * rows of one account live in one shard group, so each query of a request (they all name the
 * account) is routed to one worker, and a capture's transaction — the memory, its chunks, facts
 * and postings, the term statistics the trigger keeps, the chain head it locks — commits on one
 * node, without two-phase commit.
 */
const accountTables = [
  "memories",
  "memory_chunks",
  "memory_chunks_next",
  "memory_facts",
  "memory_origins",
  "search_postings",
  "search_terms",
  "search_totals",
  "ledger_entries",
  "ledger_heads",
  "ledger_checkpoints",
  "deletion_receipts",
  "erasure_receipts",
  "idempotency_keys",
  "account_categories",
  "webhooks"
] as const

/**
 * `rate_buckets` (keyed by a bucket name, written on every request) and `umo_migrations` stay
 * plain tables of the coordinator: UMO's processes connect only to the coordinator, and no query
 * joins them with a distributed table, so PostgreSQL answers them there without Citus.
 */
export const coordinatorTables = ["rate_buckets", "umo_migrations"] as const

/** Whether the database is a Citus coordinator (the extension is installed in it). */
export const isCitus = (sql: SqlClient.SqlClient) =>
  sql<{ citus: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`.pipe(
    Effect.map(([row]) => row?.citus === true)
  )

/**
 * On a Citus coordinator, makes UMO's schema the design of `docs/deployment.md` ("Citus, by
 * account"): reference tables for accounts, keys and settings, every per-account table distributed
 * by `account_id` and colocated. Idempotent: a table already distributed is left as it is, so it
 * runs at every start (after the migrations, under the start-up lock) and a later migration's new
 * table is distributed by the next start. On PGlite and plain PostgreSQL it does nothing.
 *
 * Existing rows are copied to the shards and the coordinator's local copies truncated, so a
 * single-node database that gets the citus extension becomes a distributed one at its next start.
 */
export const distributeByAccount = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  if (!(yield* isCitus(sql))) return
  const done = new Set(
    (yield* sql<{ name: string }>`SELECT logicalrelid::regclass::text AS name FROM pg_dist_partition`).map(
      (row) => row.name
    )
  )
  // The triggers of migrations 0003 and 0009 keep BM25's term statistics: they write only rows of
  // the account whose memory changed, so on the shard they run on, in colocated shards of the same
  // node (Citus executes a trigger's statements on colocated shards locally). Citus asks for the
  // setting to create triggers on distributed tables at all.
  yield* sql`SET LOCAL citus.enable_unsafe_triggers = on`
  // Distributing a table next to tables of the same transaction needs one connection per node.
  yield* sql`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`
  for (const table of referenceTables) {
    if (done.has(table)) continue
    yield* sql`SELECT create_reference_table(${table})`
    yield* sql`SELECT truncate_local_data_after_distributing_table(${table})`
  }
  // A unique key of a distributed table must hold the distribution column: a webhook's id alone
  // is unique by construction (a random UUID), and (account_id, webhook_id) keeps it so per shard.
  if (!done.has("webhooks")) {
    const [key] = yield* sql<{ columns: number }>`
      SELECT array_length(conkey, 1) AS columns FROM pg_constraint
      WHERE conrelid = 'webhooks'::regclass AND contype = 'p'`
    if (key?.columns === 1) {
      yield* sql`ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey`
      yield* sql`ALTER TABLE webhooks ADD PRIMARY KEY (account_id, webhook_id)`
    }
  }
  // Citus refuses a foreign key from a plain table to a distributed one, so the keys between
  // per-account tables (a chunk's, fact's or origin's memory) are dropped while the tables are
  // distributed one by one, and made again, shard by shard, once all are.
  const pending = accountTables.filter((table) => !done.has(table))
  if (pending.length > 0) yield* distribute(sql, pending)
  yield* routeSearchStatistics(sql)
})

/** Distributes the per-account tables not yet distributed, their foreign keys made again after. */
const distribute = (sql: SqlClient.SqlClient, pending: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const keys = yield* sql<{ table: string; name: string; definition: string }>`
    SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint
    WHERE contype = 'f' AND conrelid::regclass::text IN ${sql.in(pending)}
      AND confrelid::regclass::text IN ${sql.in(accountTables)}`
    for (const key of keys) yield* sql`ALTER TABLE ${sql(key.table)} DROP CONSTRAINT ${sql(key.name)}`
    for (const table of pending) {
      yield* table === "memories"
        ? sql`SELECT create_distributed_table('memories', 'account_id')`
        : sql`SELECT create_distributed_table(${table}, 'account_id', colocate_with => 'memories')`
      yield* sql`SELECT truncate_local_data_after_distributing_table(${table})`
    }
    for (const key of keys)
      yield* sql`ALTER TABLE ${sql(key.table)} ADD CONSTRAINT ${sql(key.name)} ${sql.unsafe(key.definition)}`
  })

/** Marks the Citus version of the statistics trigger's function, so a start replaces it only once. */
const routedMark = "umo: routed on Citus"

/**
 * Migration 0007's row trigger writes a memory's terms and postings with `INSERT … SELECT … FROM
 * unnest(NEW.search)`. On a worker Citus cannot route an INSERT … SELECT from a function: it
 * evaluates the SELECT, then sends the rows on ("pull to coordinator"), which tripled the
 * trigger's cost there (0.63–0.70 s for 300 captures against 0.20–0.22). A multi-row
 * `INSERT … VALUES` of one account is routed to its shard and runs locally, so on Citus the
 * function builds one (terms in lexeme order, the lock order of migration 0003). Plain PostgreSQL
 * and PGlite keep the migration's version; Citus carries the replacement to the workers.
 */
const routeSearchStatistics = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const [current] = yield* sql<{ source: string }>`
      SELECT prosrc AS source FROM pg_proc WHERE proname = 'memories_search_stats'`
    if (current === undefined || current.source.includes(routedMark)) return
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION memories_search_stats() RETURNS trigger LANGUAGE plpgsql AS $$
      -- ${routedMark}
      DECLARE
        terms text;
        postings text;
      BEGIN
        SELECT string_agg(format('(%L::uuid, %L, 1)', NEW.account_id, u.lexeme), ', ' ORDER BY u.lexeme),
               string_agg(format('(%L::uuid, %L, %L::uuid, %s, %s)', NEW.account_id, u.lexeme, NEW.umo_id,
                 coalesce(array_length(u.positions, 1), 1), length(NEW.search)), ', ')
          INTO terms, postings FROM unnest(NEW.search) u;
        IF terms IS NOT NULL THEN
          EXECUTE 'INSERT INTO search_terms (account_id, lexeme, documents) VALUES ' || terms ||
            ' ON CONFLICT (account_id, lexeme) DO UPDATE SET documents = search_terms.documents + 1';
        END IF;
        INSERT INTO search_totals (account_id, documents, lexemes) VALUES (NEW.account_id, 1, length(NEW.search))
          ON CONFLICT (account_id) DO UPDATE SET documents = search_totals.documents + 1,
            lexemes = search_totals.lexemes + excluded.lexemes;
        IF postings IS NOT NULL THEN
          EXECUTE 'INSERT INTO search_postings (account_id, lexeme, umo_id, occurrences, memory_lexemes) VALUES ' ||
            postings;
        END IF;
        RETURN NEW;
      END
    $$`)
  })
