/**
 * Provenance: how ledger entries, checkpoints and stored records are hashed (and so what their
 * signatures cover). Checking them offline is `Verification`.
 * @module
 */
import { canonicalJson } from "./CanonicalJson.js"
import { sha256Hex } from "./Hashing.js"
import type { LedgerEntry } from "./ports/Ledger.js"
import type { Metadata } from "./Scope.js"

/** The `prev_hash` of an account's first entry. */
export const genesisHash = "0".repeat(64)

/**
 * The fields of an entry that its hash covers (everything but the hash, signature and key id). A
 * supersession entry also names the memory that superseded it; other entries have no such field,
 * so their hashes are what they were before supersessions existed.
 */
export const entryHashInput = (entry: Omit<LedgerEntry, "entry_hash" | "signature" | "key_id">) => ({
  account_id: entry.account_id,
  seq: entry.seq,
  kind: entry.kind,
  umo_id: entry.umo_id,
  content_hash: entry.content_hash,
  semantic_hash: entry.semantic_hash,
  record_hash: entry.record_hash,
  ...(typeof entry.superseded_by === "string" ? { superseded_by: entry.superseded_by } : {}),
  recorded_at: entry.recorded_at,
  prev_hash: entry.prev_hash
})

/** `entry_hash`: SHA-256 of the canonical JSON of the entry's fields. */
export const entryHash = (entry: Omit<LedgerEntry, "entry_hash" | "signature" | "key_id">): string =>
  sha256Hex(canonicalJson(entryHashInput(entry)))

/** What a checkpoint signs: that an account's chain had this hash at this position. */
export const checkpointMessage = (checkpoint: {
  account_id: string
  seq: number
  entry_hash: string
}): string =>
  canonicalJson({
    type: "umo-checkpoint",
    account_id: checkpoint.account_id,
    seq: checkpoint.seq,
    entry_hash: checkpoint.entry_hash
  })

/** The stored fields of a memory that neither the content nor the semantic hash covers. */
export interface RecordFields {
  readonly account_id: string
  readonly umo_id: string
  readonly source: string | null
  readonly timestamp: string
  readonly created_at: string
  readonly embedding_model: string
  readonly user_id?: string | null | undefined
  readonly agent_id?: string | null | undefined
  readonly session_id?: string | null | undefined
  readonly metadata?: Metadata | undefined
  /** Chunks with their stored index, in index order. */
  readonly chunks: ReadonlyArray<{
    readonly index: number
    readonly start: number
    readonly end: number
    readonly vector: ReadonlyArray<number>
  }>
}

/**
 * The scope and metadata of a record, each only when it has one: a memory without them
 * hashes as memories did before they existed, so their proofs stay valid. (Leaving a field out and
 * giving it are different inputs, so neither can pass for the other.)
 */
const scopeFields = (record: RecordFields) => ({
  ...(record.user_id != null ? { user_id: record.user_id } : {}),
  ...(record.agent_id != null ? { agent_id: record.agent_id } : {}),
  ...(record.session_id != null ? { session_id: record.session_id } : {}),
  ...(record.metadata !== undefined && Object.keys(record.metadata).length > 0
    ? { metadata: record.metadata }
    : {})
})

/**
 * `record_hash`: SHA-256 over the memory's metadata — source, times, scope, the caller's
 * metadata — and its chunk vectors. (Supersessions are chain entries of their own.) Vectors are hashed at single precision (what
 * pgvector stores), so the hash computed at capture equals the one recomputed from the database.
 */
export const recordHash = (record: RecordFields): string =>
  sha256Hex(
    canonicalJson({
      account_id: record.account_id,
      umo_id: record.umo_id,
      source: record.source,
      ...scopeFields(record),
      timestamp: record.timestamp,
      created_at: record.created_at,
      embedding_model: record.embedding_model,
      chunks: record.chunks.map((c) => ({
        index: c.index,
        start: c.start,
        end: c.end,
        vector: c.vector.map((x) => Math.fround(x))
      }))
    })
  )
