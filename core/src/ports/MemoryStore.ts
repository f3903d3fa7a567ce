import { Context, type Effect, type Option, Schema } from "effect"
import type { Category } from "../Categories.js"
import type { MemoryFilter } from "../Filter.js"
import type { Umo } from "../Umo.js"
import type { StatedFact } from "../Updates.js"
import type { LedgerEntry } from "./Ledger.js"
import { traced } from "./Traced.js"

/**
 * The database could not be reached, or refused the operation; `SigningKeyRetired` when a key
 * rotation retired the key this process signs with (see `LedgerError`).
 */
export class StoreError extends Schema.Error<StoreError>("StoreError")({
  /**
   * `IdempotencyKeyUsed`: another write stored an answer under the same idempotency key first.
   * `UnknownMemory`: a capture's `supersedes` names no memory of the account (`umo_id` says which).
   * `AlreadySuperseded`: a capture's `supersedes` names a memory another one superseded already.
   * `Immutable`: a capture's `supersedes` names a memory captured immutable.
   * `EmbedderSwitched`: the store moved to another embedding model (a re-embedding finished) after
   * these memories were embedded: embedded again, they can be stored.
   */
  reason: Schema.Literals([
    "Unavailable",
    "EmbedderMismatch",
    "EmbedderSwitched",
    "SigningKeyRetired",
    "IdempotencyKeyUsed",
    "UnknownMemory",
    "AlreadySuperseded",
    "Immutable",
    "Failed"
  ]),
  /** The memory a reason is about (`UnknownMemory`, `AlreadySuperseded`). */
  umo_id: Schema.optional(Schema.String),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return this.detail
  }
}

/** A memory as stored for one account: the UMO with its chunk offsets but without vectors. */
/**
 * Where an imported memory came from: the export's format, the original's id and capture time,
 * and whether the original's proof held against the export's signing keys (null: it carried none,
 * as Mem0's memories do not).
 */
export interface ImportedFrom {
  readonly format: "umo" | "mem0"
  readonly id: string
  readonly created_at: string | null
  readonly verified: boolean | null
}

export type StoredMemory = Omit<Umo, "embedding"> & {
  readonly account_id: string
  readonly embedding_model: string
  readonly record_hash: string
  /** The memories this one replaced, oldest first (named at its capture, or found by its facts). */
  readonly supersedes: ReadonlyArray<string>
  /** The memory that replaced this one (see `Updates`), or null while it is current. */
  readonly superseded_by: string | null
  /** When it was replaced (ISO 8601), or null. */
  readonly superseded_at: string | null
  /** Where it was imported from, or null for a memory captured here. */
  readonly imported_from: ImportedFrom | null
  /**
   * When it expires (ISO 8601), or null: from then on no read returns it, and the sweeper erases
   * it with a signed erasure receipt. Not part of `record_hash`: it may be moved (a read refreshing
   * a LangGraph item's TTL) without a new version.
   */
  readonly expires_at: string | null
  /** Captured immutable: nothing supersedes it, neither a caller's update nor an inferred one. */
  readonly immutable: boolean
  /** The categories it is filed under (see `Categories`), in the order they fit it best. */
  readonly categories: ReadonlyArray<string>
}

/** Which memories a read takes: those the filter admits, superseded ones only when asked for. */
export interface Selection {
  /** Default: every memory. */
  readonly filter?: MemoryFilter | undefined
  /** Default: false, current memories only. */
  readonly includeSuperseded?: boolean | undefined
  /** Default: false: memories past their `expires_at` are left out (an erasure takes them too). */
  readonly includeExpired?: boolean | undefined
}

export interface ListOptions extends Selection {
  readonly limit: number
  readonly offset: number
}

export interface ListPage {
  readonly items: ReadonlyArray<StoredMemory>
  readonly total: number
}

/** What a capture hands back: the chain entry and a compact JWS of it, and what it updated. */
export interface CaptureReceipt {
  readonly entry: LedgerEntry
  readonly receipt: string
  /** The memories it superseded: those its capture named, then those its facts outdated. */
  readonly supersedes: ReadonlyArray<string>
  /** A newer memory that superseded it at once (its content was older), or null. */
  readonly superseded_by: string | null
  /**
   * The current memory this capture repeated (`CaptureWrite.dedupe`): nothing new was stored, the
   * chain records a `repeat` entry of it, and `entry` is its capture entry.
   */
  readonly duplicate_of?:
    | { readonly umo_id: string; readonly created_at: string; readonly quality_score: number }
    | undefined
}

/** A memory to store, with what finds the memories it updates. */
export interface CaptureWrite {
  readonly umo: Umo
  /** Memories of the account the caller says this one replaces. */
  readonly supersedes: ReadonlyArray<string>
  /** The facts it states: kept, so later memories find it, and used now when `inferUpdates`. */
  readonly facts: ReadonlyArray<StatedFact>
  /** Supersede the current memories its facts outdate (see `decideUpdates`): the fact rules' way. */
  readonly inferUpdates: boolean
  /** Whether the update judge is asked about it at capture (see `@umo/memory`'s capture Judging). */
  readonly judge?: boolean | undefined
  /**
   * What the update judge decided before the write: the memories it makes out of date, and the
   * newer memory that makes it out of date (its content is older), or null. The store supersedes
   * those still current under the account's lock.
   */
  readonly judged?:
    | { readonly outdates: ReadonlyArray<string>; readonly outdatedBy: string | null }
    | undefined
  /**
   * A memory of the account that supersedes this one from the start (an import bringing in a
   * memory whose successor it brought in first).
   */
  readonly supersededBy?: string | undefined
  /**
   * Answer with the current memory of the same text, source, scope and metadata instead of storing this one
   * (at the same content time when `timeGiven`, else at any), checked under the account's lock.
   */
  readonly dedupe?: { readonly timeGiven: boolean } | undefined
  /** An imported memory's original (`umo:<id>`, `mem0:<id>`): kept, so it is never imported twice. */
  readonly origin?: { readonly key: string; readonly imported_from: ImportedFrom } | undefined
  /** When it expires (ISO 8601); default never. */
  readonly expiresAt?: string | undefined
  /** Refuse every later supersession of it; default false. */
  readonly immutable?: boolean | undefined
  /** The categories it is filed under; default none. */
  readonly categories?: ReadonlyArray<string> | undefined
}

/** A memory as an export writes it: with its signed chain entries, and its chunk vectors when asked. */
export interface ExportedMemory {
  readonly memory: StoredMemory
  /** Its capture entry (null only if the chain lost it). */
  readonly entry: LedgerEntry | null
  /** The entry recording its supersession, when it was superseded. */
  readonly supersession: LedgerEntry | null
  readonly chunks?: ReadonlyArray<{
    readonly start: number
    readonly end: number
    readonly vector: ReadonlyArray<number>
  }>
}

/** The spec's deletion receipt. */
export interface DeletionReceipt {
  readonly forgotten: true
  readonly umo_id: string
  readonly deleted_at: string
  /** Compact JWS (EdDSA) over the deletion entry. */
  readonly receipt: string
}

/** What an erasure of many memories answers: how many, which, and one signed receipt for all. */
export interface ErasureReceipt {
  readonly forgotten: number
  readonly umo_ids: ReadonlyArray<string>
  /** When the deletions were recorded; null when nothing matched. */
  readonly deleted_at: string | null
  /**
   * Compact JWS (EdDSA) over the claims `{type: "umo-erasure-receipt", umo_ids, count, deleted_at,
   * first_seq, entry}`, `entry` being the last deletion entry (whose hash covers every entry
   * before it); empty when nothing matched.
   */
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

/** The kinds of scope inside an account: end users, agents, conversations. */
export type ScopeKind = "user" | "agent" | "session"

/** Which scopes a page lists: of one kind, or every kind; ids starting with `prefix`. */
export interface ScopesOptions {
  readonly kind?: ScopeKind | undefined
  readonly prefix?: string | undefined
  readonly limit: number
  readonly offset: number
}

/** A scope of the account: how many current memories it holds, and the newest one's time. */
export interface ScopeSummary {
  readonly kind: ScopeKind
  readonly id: string
  readonly memories: number
  readonly last_memory_at: string
}

export interface ScopePage {
  readonly items: ReadonlyArray<ScopeSummary>
  readonly total: number
}

/**
 * Where memories live. Every operation is scoped to one account: no call reads, changes or
 * deletes another account's rows. One SQL implementation runs on PGlite and PostgreSQL.
 */
export interface MemoryStoreShape {
  /** Stores one UMO as `insertMany` does, with no facts and nothing to supersede. */
  readonly insert: (accountId: string, umo: Umo) => Effect.Effect<CaptureReceipt, StoreError>
  /**
   * Stores captured UMOs (content, extraction, chunk vectors, facts) and their chain entries, in
   * order, in one transaction: all of them, or — failing — none. The memories each write `supersedes` are
   * superseded with it (`UnknownMemory` or `AlreadySuperseded` fails the write), then, for writes
   * that infer updates, in content-time order, the current memories its facts outdate
   * (`decideUpdates`); each supersession is a signed `supersede` entry after the captures. With
   * `idempotency`, the answer is stored with them; a key already used fails the whole write with
   * `IdempotencyKeyUsed`.
   */
  readonly insertMany: (
    accountId: string,
    writes: ReadonlyArray<CaptureWrite>,
    idempotency?: IdempotentWrite
  ) => Effect.Effect<ReadonlyArray<CaptureReceipt>, StoreError>
  /** What an idempotency key of the account stored, if it was used in the last 24 hours. */
  readonly idempotentAnswer: (
    accountId: string,
    key: string
  ) => Effect.Effect<Option.Option<IdempotentAnswer>, StoreError>
  /** The memory, unless it is unknown or expired. */
  readonly get: (accountId: string, umoId: string) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  /**
   * Moves a current, unexpired memory's expiry (null: never) in place, with no new version (none
   * when there is no such memory).
   */
  readonly setExpiry: (
    accountId: string,
    umoId: string,
    expiresAt: string | null
  ) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  /**
   * Erases up to `limit` memories whose expiry has passed, oldest expiry first, as `erase` does:
   * one signed erasure receipt (claims `reason: "expired"`) per account they belonged to.
   */
  readonly sweepExpired: (
    limit: number
  ) => Effect.Effect<
    ReadonlyArray<{ readonly account_id: string; readonly erasure: ErasureReceipt }>,
    StoreError
  >
  /** The account's own category list, or none (it files memories under the default list). */
  readonly categoryList: (
    accountId: string
  ) => Effect.Effect<Option.Option<ReadonlyArray<Category>>, StoreError>
  /** Sets the account's category list (null: back to the default list); memories keep theirs. */
  readonly setCategoryList: (
    accountId: string,
    categories: ReadonlyArray<Category> | null
  ) => Effect.Effect<void, StoreError>
  /** The account's memories among `umoIds` (expired ones too), in no particular order; unknown ids are skipped. */
  readonly getMany: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<StoredMemory>, StoreError>
  /** The memory's chunk vectors in order (empty when the memory does not exist in the account). */
  readonly vectors: (
    accountId: string,
    umoId: string
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, StoreError>
  /** Newest first by the memory's own time (`timestamp` desc, then `created_at` and `umo_id` desc). */
  readonly list: (accountId: string, options: ListOptions) => Effect.Effect<ListPage, StoreError>
  /**
   * A memory's line of versions, oldest first (content time, then id): every memory linked to it
   * through `supersedes` and `superseded_by`, itself included; none for an unknown memory.
   */
  readonly history: (
    accountId: string,
    umoId: string
  ) => Effect.Effect<Option.Option<ReadonlyArray<StoredMemory>>, StoreError>
  /** Hard-deletes content and vectors, appends a deletion entry and returns the signed receipt. */
  readonly remove: (
    accountId: string,
    umoId: string
  ) => Effect.Effect<Option.Option<DeletionReceipt>, StoreError>
  /**
   * Hard-deletes every memory the filter admits, superseded ones included, in one transaction:
   * a deletion entry each, and one signed receipt naming them all.
   */
  readonly erase: (accountId: string, filter: MemoryFilter) => Effect.Effect<ErasureReceipt, StoreError>
  /**
   * Hard-deletes the memories named, superseded or expired ones too, in one transaction, with one
   * signed receipt naming them all; one that is not the account's deletes none (`UnknownMemory`).
   */
  readonly removeMany: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ErasureReceipt, StoreError>
  /**
   * A page of the selected memories in capture order (`umo_id` ascending: ids are time-ordered)
   * after `afterId`, each with its chain entries (and vectors when asked): an export reads the
   * account through these pages, however many memories it holds.
   */
  readonly exportPage: (
    accountId: string,
    options: Selection & {
      readonly afterId: string | null
      readonly limit: number
      readonly vectors: boolean
    }
  ) => Effect.Effect<ReadonlyArray<ExportedMemory>, StoreError>
  /** The account's scopes that hold current memories, most recently active first. */
  readonly scopes: (accountId: string, options: ScopesOptions) => Effect.Effect<ScopePage, StoreError>
  /** The account's memories imported from these originals (`ImportedFrom`'s keys), by original. */
  readonly originsOf: (
    accountId: string,
    keys: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, string>, StoreError>
}

export class MemoryStore extends Context.Service<MemoryStore, MemoryStoreShape>()("@umo/core/MemoryStore") {}

/** The port from an implementation, each method traced (`MemoryStore.get`, …). */
export const makeMemoryStore = (impl: MemoryStoreShape): MemoryStoreShape => traced("MemoryStore", impl)
