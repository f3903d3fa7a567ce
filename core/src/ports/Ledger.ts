import { Context, type Effect, type Option, Schema } from "effect"

export class LedgerError extends Schema.Error<LedgerError>("LedgerError")({
  reason: Schema.Literals(["Unavailable", "KeyUnavailable", "Failed"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

export type LedgerEventKind = "capture" | "delete"

/** What is appended to an account's chain. Entries hold hashes only, never content. */
export interface LedgerEvent {
  readonly kind: LedgerEventKind
  readonly umo_id: string
  readonly content_hash: string
  readonly semantic_hash: string
}

/** One link of an account's hash chain, signed with the service's Ed25519 key. */
export interface LedgerEntry extends LedgerEvent {
  readonly account_id: string
  /** Position in the account's chain, from 1. */
  readonly seq: number
  readonly recorded_at: string
  readonly prev_hash: string
  /** SHA-256 of the canonical JSON of every field above. */
  readonly entry_hash: string
  readonly signature: string
  readonly key_id: string
}

/** The proof of one memory: its entry checked, and the chain from it to a signed checkpoint. */
export interface LedgerProof {
  readonly entry: LedgerEntry
  /** The entry's own hash and signature are intact. */
  readonly entry_valid: boolean
  /** The chain links that cover the entry are intact. */
  readonly chain_valid: boolean
  readonly first_published: string
}

/**
 * The per-account, append-only hash chain of capture and deletion events. Appends are serialized
 * per account so concurrent writers never fork a chain.
 */
export interface LedgerShape {
  readonly append: (accountId: string, event: LedgerEvent) => Effect.Effect<LedgerEntry, LedgerError>
  readonly proof: (accountId: string, umoId: string) => Effect.Effect<Option.Option<LedgerProof>, LedgerError>
  /** The public signing key as a JWK (OKP, Ed25519), for offline verification. */
  readonly publicKeyJwk: Effect.Effect<Readonly<Record<string, string>>, LedgerError>
}

export class Ledger extends Context.Service<Ledger, LedgerShape>()("@umo/core/Ledger") {}
