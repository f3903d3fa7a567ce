import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The first schema. Every table is keyed by `account_id` first, so no query crosses accounts and
 * an operator can shard by account. Vectors have no fixed dimension here: the store pins its
 * embedder (model and dimension) in `store_settings` and builds the HNSW index for that dimension.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE EXTENSION IF NOT EXISTS vector`
  yield* sql`CREATE TABLE store_settings (
    key text PRIMARY KEY,
    value text NOT NULL
  )`
  yield* sql`CREATE TABLE accounts (
    account_id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    workspace_id text,
    tier text NOT NULL DEFAULT 'beta',
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE TABLE api_keys (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    key_id text NOT NULL,
    key_hash text NOT NULL,
    status text NOT NULL DEFAULT 'active',
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    PRIMARY KEY (account_id, key_id)
  )`
  // Authentication looks a key up by its hash before the account is known.
  yield* sql`CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash)`
  yield* sql`CREATE UNIQUE INDEX api_keys_key_id ON api_keys (key_id)`
  yield* sql`CREATE TABLE memories (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    umo_id uuid NOT NULL,
    content text NOT NULL,
    summary text NOT NULL,
    entities jsonb NOT NULL,
    svo_triples jsonb NOT NULL,
    topics jsonb NOT NULL,
    tone jsonb NOT NULL,
    language text NOT NULL,
    quality_score double precision NOT NULL,
    source text,
    content_time timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    pipeline jsonb NOT NULL,
    extensions jsonb NOT NULL,
    content_hash text NOT NULL,
    semantic_hash text NOT NULL,
    record_hash text NOT NULL,
    embedding_model text NOT NULL,
    search tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
    PRIMARY KEY (account_id, umo_id)
  )`
  yield* sql`CREATE INDEX memories_newest ON memories (account_id, created_at DESC, umo_id DESC)`
  yield* sql`CREATE INDEX memories_source_newest ON memories (account_id, source, created_at DESC, umo_id DESC)`
  yield* sql`CREATE INDEX memories_search ON memories USING gin (search)`
  yield* sql`CREATE TABLE memory_chunks (
    account_id uuid NOT NULL,
    umo_id uuid NOT NULL,
    chunk_index integer NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (account_id, umo_id, chunk_index),
    FOREIGN KEY (account_id, umo_id) REFERENCES memories ON DELETE CASCADE
  )`
  yield* sql`CREATE TABLE ledger_entries (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    seq integer NOT NULL,
    kind text NOT NULL,
    umo_id uuid NOT NULL,
    content_hash text NOT NULL,
    semantic_hash text NOT NULL,
    record_hash text NOT NULL,
    recorded_at text NOT NULL,
    prev_hash text NOT NULL,
    entry_hash text NOT NULL,
    signature text NOT NULL,
    key_id text NOT NULL,
    PRIMARY KEY (account_id, seq)
  )`
  yield* sql`CREATE INDEX ledger_entries_umo ON ledger_entries (account_id, umo_id, seq)`
  // One row per account, locked FOR UPDATE by every append: the chain's serialization point.
  yield* sql`CREATE TABLE ledger_heads (
    account_id uuid PRIMARY KEY REFERENCES accounts ON DELETE CASCADE,
    seq integer NOT NULL,
    entry_hash text NOT NULL
  )`
  yield* sql`CREATE TABLE ledger_checkpoints (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    seq integer NOT NULL,
    entry_hash text NOT NULL,
    signature text NOT NULL,
    key_id text NOT NULL,
    PRIMARY KEY (account_id, seq)
  )`
  yield* sql`CREATE TABLE deletion_receipts (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    umo_id uuid NOT NULL,
    seq integer NOT NULL,
    deleted_at text NOT NULL,
    receipt text NOT NULL,
    PRIMARY KEY (account_id, umo_id)
  )`
})
