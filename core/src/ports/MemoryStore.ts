import { Context, type Effect, type Option, Schema } from "effect"
import type { JWK } from "jose"
import type { KeyRotation } from "../KeyRing.js"
import type { Entity, Umo } from "../Umo.js"
import type { LedgerEntry } from "./Ledger.js"

/**
 * The database could not be reached, or refused the operation; `SigningKeyRetired` when a key
 * rotation retired the key this process signs with (see `LedgerError`).
 */
export class StoreError extends Schema.Error<StoreError>("StoreError")({
  /** `IdempotencyKeyUsed`: another write stored an answer under the same idempotency key first. */
  reason: Schema.Literals([
    "Unavailable",
    "EmbedderMismatch",
    "SigningKeyRetired",
    "IdempotencyKeyUsed",
    "Failed"
  ]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return this.detail
  }
}

/** A memory as stored for one account: the UMO with its chunk offsets but without vectors. */
export type StoredMemory = Omit<Umo, "embedding"> & {
  readonly account_id: string
  readonly embedding_model: string
  readonly record_hash: string
}

export interface ListOptions {
  readonly limit: number
  readonly offset: number
  readonly source?: string | undefined
}

export interface ListPage {
  readonly items: ReadonlyArray<StoredMemory>
  readonly total: number
}

/** A search candidate with the raw signal that found it (cosine similarity or text rank). */
export interface Candidate {
  readonly umo_id: string
  readonly score: number
}

export interface SearchOptions {
  readonly limit: number
  readonly source?: string | undefined
  /** Score only these memories (exactly, without the index): how ranking scores neighbours. */
  readonly ids?: ReadonlyArray<string> | undefined
}

/** The memories captured just before and after one, in its source's timeline (null at the ends). */
export interface Neighbours {
  readonly umo_id: string
  readonly previous: string | null
  readonly next: string | null
}

/** What ranking reads of a memory besides its scores: when it happened and what it names. */
export interface RankingFacts {
  readonly umo_id: string
  readonly timestamp: string
  readonly entities: ReadonlyArray<Entity>
}

/** What a capture hands back: the chain entry and a compact JWS of it. */
export interface CaptureReceipt {
  readonly entry: LedgerEntry
  readonly receipt: string
}

/** The spec's deletion receipt. */
export interface DeletionReceipt {
  readonly forgotten: true
  readonly umo_id: string
  readonly deleted_at: string
  /** Compact JWS (EdDSA) over the deletion entry. */
  readonly receipt: string
}

/** A memory's provenance, recomputed from what is stored now. */
export interface MemoryProof {
  /** Stored content, extraction and metadata still hash to what the signed entry recorded. */
  readonly valid: boolean
  readonly hash_chain_valid: boolean
  readonly chain_tampered: boolean
  readonly first_published: string
  readonly source: string | null
  readonly content_hash: string
  readonly semantic_hash: string
  /** The capture entry, for offline checks; null when none could be found. */
  readonly entry: LedgerEntry | null
  /** The trusted key that signed the entry (null when none did). */
  readonly signing_key: JWK | null
  /** The service's key records, to follow rotations offline from a pinned key. */
  readonly rotations: ReadonlyArray<KeyRotation>
}

/**
 * An idempotent write: the answer `response` builds from its receipts is stored under `key` in
 * the write's own transaction, so the write and its answer are kept together or not at all.
 */
export interface IdempotentWrite {
  readonly key: string
  /** Identifies the request the key was used with (a hash of its operation and body). */
  readonly fingerprint: string
  readonly response: (receipts: ReadonlyArray<CaptureReceipt>) => unknown
}

/** What an idempotency key stored: the request it was used with and the answer it got. */
export interface IdempotentAnswer {
  readonly fingerprint: string
  readonly response: unknown
}

/** How long an idempotency key is remembered. */
export const idempotencyKeyHours = 24

/**
 * Where memories live. Every operation is scoped to one account: no call reads, changes or
 * deletes another account's rows. One SQL implementation runs on PGlite and PostgreSQL.
 */
export interface MemoryStoreShape {
  /** Stores a captured UMO (content, extraction, chunk vectors) and its chain entry, atomically. */
  readonly insert: (accountId: string, umo: Umo) => Effect.Effect<CaptureReceipt, StoreError>
  /**
   * Stores captured UMOs and their chain entries (in order) in one transaction: all of them, or —
   * failing — none. With `idempotency`, the answer is stored with them; a key already used fails
   * the whole write with `IdempotencyKeyUsed`.
   */
  readonly insertMany: (
    accountId: string,
    umos: ReadonlyArray<Umo>,
    idempotency?: IdempotentWrite
  ) => Effect.Effect<ReadonlyArray<CaptureReceipt>, StoreError>
  /** What an idempotency key of the account stored, if it was used in the last 24 hours. */
  readonly idempotentAnswer: (
    accountId: string,
    key: string
  ) => Effect.Effect<Option.Option<IdempotentAnswer>, StoreError>
  readonly get: (accountId: string, umoId: string) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  /** The account's memories among `umoIds`, in no particular order; unknown ids are skipped. */
  readonly getMany: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<StoredMemory>, StoreError>
  /** `getMany`'s memories reduced to what ranking reads: cheaper for the hundreds it scores. */
  readonly rankingFacts: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<RankingFacts>, StoreError>
  /** The memory's chunk vectors in order (empty when the memory does not exist in the account). */
  readonly vectors: (
    accountId: string,
    umoId: string
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, StoreError>
  /** Newest first (`created_at` desc, then `umo_id` desc). */
  readonly list: (accountId: string, options: ListOptions) => Effect.Effect<ListPage, StoreError>
  /** Hard-deletes content and vectors, appends a deletion entry and returns the signed receipt. */
  readonly remove: (
    accountId: string,
    umoId: string
  ) => Effect.Effect<Option.Option<DeletionReceipt>, StoreError>
  /** Nearest memories by cosine similarity of their best chunk. */
  readonly searchVector: (
    accountId: string,
    vector: ReadonlyArray<number>,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
  /**
   * Full-text candidates ranked by BM25 over the account's memories (English stemming, stop
   * words dropped; any query term may match).
   */
  readonly searchText: (
    accountId: string,
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
  /**
   * For each memory, its neighbours in its source's timeline: same source (or both none),
   * ordered by content time, then id (capture order).
   */
  readonly neighbours: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Neighbours>, StoreError>
  readonly proof: (accountId: string, umoId: string) => Effect.Effect<Option.Option<MemoryProof>, StoreError>
}

export class MemoryStore extends Context.Service<MemoryStore, MemoryStoreShape>()("@umo/core/MemoryStore") {}
