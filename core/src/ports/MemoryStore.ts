import { Context, type Effect, type Option, Schema } from "effect"
import type { Umo } from "../Umo.js"

/** The database could not be reached or refused the operation. */
export class StoreError extends Schema.Error<StoreError>("StoreError")({
  reason: Schema.Literals(["Unavailable", "Conflict", "Failed"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/** A memory as stored for one account: the UMO without its vectors. */
export type StoredMemory = Omit<Umo, "embedding"> & {
  readonly account_id: string
  readonly embedding_model: string
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
}

/**
 * Where memories live. Every operation is scoped to one account: no call reads, changes or
 * deletes another account's rows. Adapters run on PGlite or PostgreSQL + pgvector.
 */
export interface MemoryStoreShape {
  /** Stores a captured UMO (content, extraction, chunk vectors) atomically with its ledger entry. */
  readonly insert: (accountId: string, umo: Umo) => Effect.Effect<void, StoreError>
  readonly get: (accountId: string, umoId: string) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  /** Newest first (`created_at` desc, then `umo_id` desc). */
  readonly list: (accountId: string, options: ListOptions) => Effect.Effect<ListPage, StoreError>
  /** Hard-deletes content and vectors; `false` when there was nothing to delete. */
  readonly remove: (accountId: string, umoId: string) => Effect.Effect<boolean, StoreError>
  /** Nearest memories by cosine similarity of their best chunk. */
  readonly searchVector: (
    accountId: string,
    vector: ReadonlyArray<number>,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
  /** Full-text candidates ranked by relevance. */
  readonly searchText: (
    accountId: string,
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
}

export class MemoryStore extends Context.Service<MemoryStore, MemoryStoreShape>()("@umo/core/MemoryStore") {}
