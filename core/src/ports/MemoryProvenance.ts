import { Context, type Effect, type Option } from "effect"
import type { JWK } from "jose"
import type { KeyRotation } from "../KeyRing.js"
import type { LedgerEntry } from "./Ledger.js"
import type { StoreError } from "./MemoryStore.js"
import { traced } from "./Traced.js"

/** A memory's provenance, recomputed from what is stored now. */
export interface MemoryProof {
  readonly umo_id: string
  /**
   * Stored content, extraction and metadata still hash to what the signed entry recorded, and
   * whether it is superseded (and by which memory) is what the chain records.
   */
  readonly valid: boolean
  readonly hash_chain_valid: boolean
  readonly chain_tampered: boolean
  readonly first_published: string
  readonly source: string | null
  readonly content_hash: string
  readonly semantic_hash: string
  /** The capture entry, for offline checks; null when none could be found. */
  readonly entry: LedgerEntry | null
  /** The memory that replaced it, or null while it is current. */
  readonly superseded_by: string | null
  /** The signed entry recording that replacement, or null. */
  readonly supersession: LedgerEntry | null
  /** The trusted key that signed the entry (null when none did). */
  readonly signing_key: JWK | null
  /** The service's key records, to follow rotations offline from a pinned key. */
  readonly rotations: ReadonlyArray<KeyRotation>
}

/** A memory's provenance: its hashes recomputed from what is stored, checked against its chain. */
export interface MemoryProvenanceShape {
  /** The proof of one of the account's memories (none for an unknown or deleted one). */
  readonly proof: (accountId: string, umoId: string) => Effect.Effect<Option.Option<MemoryProof>, StoreError>
}

export class MemoryProvenance extends Context.Service<MemoryProvenance, MemoryProvenanceShape>()(
  "@umo/core/MemoryProvenance"
) {}

/** The port from an implementation, its method traced (`MemoryProvenance.proof`). */
export const makeMemoryProvenance = (impl: MemoryProvenanceShape): MemoryProvenanceShape =>
  traced("MemoryProvenance", impl)
