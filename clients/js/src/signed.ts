/**
 * What the service signs and the keys it signs with, as the service names their fields: the
 * entries of an account's hash chain and the JWK Set of `GET /.well-known/jwks.json`. Results
 * (`models`) and the offline checks (`verify`) both read these; neither reads the other's module
 * for them.
 * @module
 */

/** A JSON Web Key (RFC 7517); the service's is an OKP key on Ed25519. */
export interface Jwk {
  readonly kty?: string
  readonly crv?: string
  readonly x?: string
  readonly kid?: string
  readonly alg?: string
  readonly use?: string
  readonly [member: string]: unknown
}

/** A key record (JWS, general JSON serialization) naming a key and the one it replaced. */
export interface KeyRotation {
  readonly payload: string
  readonly signatures: ReadonlyArray<{ readonly protected: string; readonly signature: string }>
}

/** The service's JWK Set: its keys, current first, and the key records that link them. */
export interface SigningKeySet {
  readonly keys: ReadonlyArray<Jwk>
  readonly rotations?: ReadonlyArray<KeyRotation>
}

/** What you pinned: a public JWK (OKP, Ed25519) or a JWK Set holding it. */
export type PublicKey = Jwk | SigningKeySet

/** A signed entry of an account's hash chain, with the service's field names (they are hashed). */
export interface LedgerEntry {
  readonly account_id: string
  readonly seq: number
  /** `capture`, `delete`, or `supersede` (a newer memory replaced this one). */
  readonly kind: string
  readonly umo_id: string
  readonly content_hash: string
  readonly semantic_hash: string
  readonly record_hash: string
  /** `supersede` entries only: the memory that replaced `umo_id`. */
  readonly superseded_by?: string
  readonly recorded_at: string
  readonly prev_hash: string
  readonly entry_hash: string
  readonly signature: string
  readonly key_id: string
}
