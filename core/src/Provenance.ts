/**
 * Provenance: how ledger entries, checkpoints and stored records are hashed and signed, and how
 * anyone holding the service's public key (a JWK from the service) checks them offline.
 *
 * Offline check of a proof (optionally with the memory's text), with the keys the verifier pinned
 * (one JWK, or the JWK Set from `/.well-known/jwks.json`); rotations since are followed through
 * the key records the proof carries (see `KeyRing`):
 * ```ts
 * const ok = verifyProof(proof, pinnedKeys, contentText) // entry hash, Ed25519 signature, content hash
 * ```
 * Offline check of a deletion receipt (a compact JWS, EdDSA):
 * ```ts
 * const deletion = await verifyReceipt(receipt, pinnedKeys) // the signed deletion entry, or throws
 * ```
 * @module
 */
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose"
import { canonicalJson } from "./CanonicalJson.js"
import { sha256Hex } from "./Hashing.js"
import { type KeyRotation, type PinnedKeys, trustedKeys, verifySignature } from "./KeyRing.js"
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

/** Keys to verify with: what a verifier pinned, or keys it already trusts (from `trustedKeys`). */
export type VerificationKeys = PinnedKeys | ReadonlyMap<string, JWK>

const trusted = (keys: VerificationKeys, rotations?: ReadonlyArray<KeyRotation>) =>
  keys instanceof Map ? keys : trustedKeys(keys as PinnedKeys, rotations)

/** Whether an entry's hash matches its fields and a trusted key — the one it names — signed it. */
export const verifyEntry = (
  entry: LedgerEntry,
  keys: VerificationKeys,
  rotations?: ReadonlyArray<KeyRotation>
): boolean => {
  const jwk = trusted(keys, rotations).get(entry.key_id)
  return (
    jwk !== undefined &&
    entry.entry_hash === entryHash(entry) &&
    verifySignature(entry.entry_hash, entry.signature, jwk)
  )
}

/** The claims of a deletion receipt. */
export interface ReceiptClaims {
  readonly type: "umo-deletion-receipt"
  readonly umo_id: string
  readonly deleted_at: string
  readonly entry: LedgerEntry
}

/**
 * Verifies a deletion receipt (compact JWS, EdDSA) offline with the pinned keys (and key records
 * linking them to the key that signed it) and returns its claims; throws when the signature or the
 * deletion entry inside does not check out.
 */
export const verifyReceipt = async (
  receipt: string,
  keys: VerificationKeys,
  rotations?: ReadonlyArray<KeyRotation>
): Promise<ReceiptClaims> => {
  const ring = trusted(keys, rotations)
  const kid = decodeProtectedHeader(receipt).kid
  // The service names its key; a receipt that does not may be checked against every trusted key.
  const candidates = kid === undefined ? [...ring.values()] : [ring.get(kid)].filter((k) => k !== undefined)
  let payload: Uint8Array | undefined
  for (const jwk of candidates) {
    payload = await compactVerify(receipt, await importJWK(jwk, "EdDSA"), { algorithms: ["EdDSA"] }).then(
      (verified) => verified.payload,
      () => undefined
    )
    if (payload) break
  }
  if (payload === undefined) throw new Error("the receipt is not signed by a trusted key")
  const claims = JSON.parse(new TextDecoder().decode(payload)) as ReceiptClaims
  if (
    claims.type !== "umo-deletion-receipt" ||
    claims.entry.kind !== "delete" ||
    claims.entry.umo_id !== claims.umo_id
  ) {
    throw new Error("not a UMO deletion receipt")
  }
  if (!verifyEntry(claims.entry, ring)) throw new Error("the deletion entry in the receipt does not verify")
  return claims
}

/** What a caller holds after `GET /v1/memories/{id}/proof` (and, optionally, the memory's text). */
export interface ProofToCheck {
  readonly content_hash: string
  readonly semantic_hash: string
  readonly entry: LedgerEntry | null
  /** The service's key records, so rotations since the verifier pinned its keys can be followed. */
  readonly rotations?: ReadonlyArray<KeyRotation> | undefined
}

/**
 * Checks a memory's proof offline: the capture entry is signed by a trusted key, covers this
 * memory's content and semantic hashes, and — when `content` (the `content_text` search returns)
 * is given — the content hashes to the recorded value.
 */
export const verifyProof = (proof: ProofToCheck, keys: VerificationKeys, content?: string): boolean =>
  proof.entry !== null &&
  proof.entry.kind === "capture" &&
  verifyEntry(proof.entry, keys, proof.rotations) &&
  proof.entry.content_hash === proof.content_hash &&
  proof.entry.semantic_hash === proof.semantic_hash &&
  (content === undefined || sha256Hex(content) === proof.content_hash)
