/**
 * Provenance: how ledger entries, checkpoints and stored records are hashed (and so what their
 * signatures cover). Checking them offline is `Verification`.
 * @module
 */
import { canonicalJson } from "./CanonicalJson.js"
import { sha256Hex } from "./Hashing.js"
import type { LedgerEntry } from "./ports/Ledger.js"

/** The `prev_hash` of an account's first entry. */
export const genesisHash = "0".repeat(64)

/** The fields of an entry that its hash covers (everything but the hash, signature and key id). */
export const entryHashInput = (entry: Omit<LedgerEntry, "entry_hash" | "signature" | "key_id">) => ({
  account_id: entry.account_id,
  seq: entry.seq,
  kind: entry.kind,
  umo_id: entry.umo_id,
  content_hash: entry.content_hash,
  semantic_hash: entry.semantic_hash,
  record_hash: entry.record_hash,
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
  /** Chunks with their stored index, in index order. */
  readonly chunks: ReadonlyArray<{
    readonly index: number
    readonly start: number
    readonly end: number
    readonly vector: ReadonlyArray<number>
  }>
}

/**
 * `record_hash`: SHA-256 over the memory's metadata and chunk vectors. Vectors are hashed at
 * single precision (what pgvector stores), so the hash computed at capture equals the one
 * recomputed from the database.
 */
export const recordHash = (record: RecordFields): string =>
  sha256Hex(
    canonicalJson({
      account_id: record.account_id,
      umo_id: record.umo_id,
      source: record.source,
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
