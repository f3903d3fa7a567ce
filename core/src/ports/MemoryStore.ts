import { Context, type Effect, type Option, Schema } from "effect"
import type { Umo } from "../Umo.js"
import type { LedgerEntry } from "./Ledger.js"
import { traced } from "./Traced.js"

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
}

export class MemoryStore extends Context.Service<MemoryStore, MemoryStoreShape>()("@umo/core/MemoryStore") {}

/** The port from an implementation, each method traced (`MemoryStore.get`, …). */
export const makeMemoryStore = (impl: MemoryStoreShape): MemoryStoreShape => traced("MemoryStore", impl)
