import { Context, type Effect, type Option, Schema } from "effect"
import type { JWK } from "jose"
import type { KeyRotation, SigningKeySet } from "../KeyRing.js"

export class LedgerError extends Schema.Error<LedgerError>("LedgerError")({
  /**
   * `SigningKeyRetired`: a rotation made another key the one that signs, and this process still
   * holds the old one (it must be restarted with the current key).
   */
  reason: Schema.Literals(["Unavailable", "SigningKeyRetired", "Failed"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return this.detail
  }
}

/**
 * `capture` and `delete` of a memory; `supersede`: a newer memory replaced it (it stays, readable
 * and provable, out of default results); `repeat`: it was captured again (the same text, source, scope and
 * metadata), and nothing new was stored; `reembed`: the store moved to another embedding model and
 * the memory's vectors are now that model's (its `record_hash` is the one they give; its content
 * and semantic hashes are unchanged).
 */
export const LedgerEventKind = Schema.Literals(["capture", "delete", "supersede", "repeat", "reembed"])
export type LedgerEventKind = typeof LedgerEventKind.Type

/** What is appended to an account's chain. Entries hold hashes only, never content. */
export const LedgerEvent = Schema.Struct({
  kind: LedgerEventKind,
  umo_id: Schema.String,
  content_hash: Schema.String,
  semantic_hash: Schema.String,
  /** Hash of the memory's metadata and vectors (see `recordHash` in Provenance). */
  record_hash: Schema.String,
  /** `supersede` entries only: the memory that replaced this one. */
  superseded_by: Schema.optionalKey(Schema.String)
})
export type LedgerEvent = typeof LedgerEvent.Type

/** One link of an account's hash chain, signed with the service's Ed25519 key. */
export const LedgerEntry = Schema.Struct({
  account_id: Schema.String,
  /** Position in the account's chain, from 1. */
  seq: Schema.Int,
  ...LedgerEvent.fields,
  recorded_at: Schema.String,
  prev_hash: Schema.String,
  /** SHA-256 of the canonical JSON of the fields above (see `entryHash` in Provenance). */
  entry_hash: Schema.String,
  /** Ed25519 signature (base64url) over `entry_hash`. */
  signature: Schema.String,
  /** Thumbprint (RFC 7638) of the key that signed it. */
  key_id: Schema.String
})
export type LedgerEntry = typeof LedgerEntry.Type

/** The chain evidence for one entry. */
export interface ChainCheck {
  readonly entry: LedgerEntry
  /** The entry's hash matches its fields and its signature is the service's. */
  readonly entry_valid: boolean
  /**
   * The chain around the entry is intact: every link from the signed checkpoint before it to the
   * signed checkpoint (or signed head) after it. Cost is bounded by the checkpoint interval, not
   * by the length of the chain.
   */
  readonly chain_valid: boolean
  /** The trusted key that signed the entry (null when none did). */
  readonly signing_key: JWK | null
  /** The service's key records, so an offline verifier can follow rotations from the key it pinned. */
  readonly rotations: ReadonlyArray<KeyRotation>
}

/**
 * The per-account, append-only hash chain of capture and deletion events. Appends are serialized
 * per account, across processes, so concurrent writers never fork a chain; an append joins the
 * caller's open transaction.
 */
export interface LedgerShape {
  readonly append: (accountId: string, event: LedgerEvent) => Effect.Effect<LedgerEntry, LedgerError>
  /** Appends events in order, as one step: all of them, or (failing) none. */
  readonly appendMany: (
    accountId: string,
    events: ReadonlyArray<LedgerEvent>
  ) => Effect.Effect<ReadonlyArray<LedgerEntry>, LedgerError>
  /** The latest entry of `kind` for a memory, checked with its chain segment. */
  readonly check: (
    accountId: string,
    umoId: string,
    kind: LedgerEventKind
  ) => Effect.Effect<Option.Option<ChainCheck>, LedgerError>
  /**
   * A page of an account's chain as stored, newest first (`seq` descending): at most `page.limit`
   * entries, only those with `seq` below `page.before` when it is given, and whether older ones
   * remain. Nothing is checked here: each entry carries what a reader needs to verify it offline
   * (its signature, and `prev_hash` linking it to the entry before).
   */
  readonly entries: (
    accountId: string,
    page: { readonly before?: number | undefined; readonly limit: number }
  ) => Effect.Effect<
    { readonly entries: ReadonlyArray<LedgerEntry>; readonly has_more: boolean },
    LedgerError
  >
  /** Checks every entry and link of an account's chain (an audit; linear in its length). */
  readonly audit: (
    accountId: string
  ) => Effect.Effect<{ readonly entries: number; readonly valid: boolean }, LedgerError>
  /** A compact JWS (EdDSA) over the given claims, signed with the ledger's key. */
  readonly signReceipt: (claims: unknown) => Effect.Effect<string>
  /** The public key this process signs with, as a JWK (OKP, Ed25519). */
  readonly publicKeyJwk: JWK
  /**
   * Every key the service has signed with (current first, then retired ones) and the key records
   * that link them, for offline verification: what `/.well-known/jwks.json` serves.
   */
  readonly signingKeys: Effect.Effect<SigningKeySet, LedgerError>
}

export class Ledger extends Context.Service<Ledger, LedgerShape>()("@umo/core/Ledger") {}
