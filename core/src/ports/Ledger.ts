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

export type LedgerEventKind = "capture" | "delete"

/** What is appended to an account's chain. Entries hold hashes only, never content. */
export interface LedgerEvent {
  readonly kind: LedgerEventKind
  readonly umo_id: string
  readonly content_hash: string
  readonly semantic_hash: string
  /** Hash of the memory's metadata and vectors (see `recordHash` in Provenance). */
  readonly record_hash: string
}

/** One link of an account's hash chain, signed with the service's Ed25519 key. */
export interface LedgerEntry extends LedgerEvent {
  readonly account_id: string
  /** Position in the account's chain, from 1. */
  readonly seq: number
  readonly recorded_at: string
  readonly prev_hash: string
  /** SHA-256 of the canonical JSON of the fields above (see `entryHash` in Provenance). */
  readonly entry_hash: string
  /** Ed25519 signature (base64url) over `entry_hash`. */
  readonly signature: string
  /** Thumbprint (RFC 7638) of the key that signed it. */
  readonly key_id: string
}

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
