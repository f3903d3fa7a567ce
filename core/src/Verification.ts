/**
 * Offline verification: what anyone holding the keys they pinned — a JWK, or the JWK Set from
 * `GET /.well-known/jwks.json` — can check of what the service signed, without asking it. Key
 * rotations since are followed through key records (`rotations`), from the pinned keys only (see
 * `KeyRing`). Both clients mirror this module check for check (`clients/js/src/verify.ts`,
 * `clients/python/umo_client/verify.py`): the same inputs pass and fail in all three.
 *
 * ```ts
 * verifyProof(proof, pinnedKeys, contentText) // the capture entry of this memory, signed by a trusted key
 * await verifyReceipt(receipt, pinnedKeys) // a capture or deletion receipt's claims, or throws
 * ```
 * @module
 */
import type { JWK } from "jose"
import { sha256Hex } from "./Hashing.js"
import {
  type KeyRotation,
  type PinnedKeys,
  strictBase64url,
  trustedKeys,
  verifySignature
} from "./KeyRing.js"
import { entryHash } from "./Provenance.js"
import type { LedgerEntry } from "./ports/Ledger.js"

/** An offline check failed: the receipt is malformed, or not signed by a trusted key, or not UMO's. */
export class VerificationError extends Error {
  override readonly name = "VerificationError"
}

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

/** What a caller holds after `GET /v1/memories/{id}/proof` (and, optionally, the memory's text). */
export interface ProofToCheck {
  /** The memory the proof is about: its capture entry must name it. */
  readonly umo_id: string
  readonly content_hash: string
  readonly semantic_hash: string
  readonly entry: LedgerEntry | null
  /** The memory that superseded it (null or absent: current). */
  readonly superseded_by?: string | null | undefined
  /** The signed supersession entry, which a superseded memory's proof must carry. */
  readonly supersession?: LedgerEntry | null | undefined
  /** The service's key records, so rotations since the verifier pinned its keys can be followed. */
  readonly rotations?: ReadonlyArray<KeyRotation> | undefined
}

/** A superseded memory's supersession entry names it and its successor, and is signed by a trusted key. */
const successionHolds = (proof: ProofToCheck, keys: VerificationKeys) => {
  const successor = proof.superseded_by ?? null
  if (successor === null) return true
  const entry = proof.supersession ?? null
  return (
    entry !== null &&
    entry.kind === "supersede" &&
    entry.umo_id === proof.umo_id &&
    entry.superseded_by === successor &&
    verifyEntry(entry, keys, proof.rotations)
  )
}

/**
 * Whether a proof holds up offline: its capture entry names this memory and its content and
 * semantic hashes, is signed by a trusted key and — when `content` (the `content_text` search
 * returns) is given — the content hashes to the recorded value; a superseded memory's proof also
 * carries the signed entry naming its successor.
 */
export const verifyProof = (proof: ProofToCheck, keys: VerificationKeys, content?: string): boolean => {
  const entry = proof.entry
  return (
    successionHolds(proof, keys) &&
    entry !== null &&
    entry.kind === "capture" &&
    entry.umo_id === proof.umo_id &&
    entry.content_hash === proof.content_hash &&
    entry.semantic_hash === proof.semantic_hash &&
    (content === undefined || sha256Hex(content) === proof.content_hash) &&
    verifyEntry(entry, keys, proof.rotations)
  )
}

/**
 * The claims of a receipt: of a capture (a capture returns it), of a deletion (a forget), or of an
 * erasure of many memories (their ids and count; `entry` is the last deletion entry, whose hash
 * covers the ones before it, from `first_seq`).
 */
export interface ReceiptClaims {
  readonly type: "umo-capture-receipt" | "umo-deletion-receipt" | "umo-erasure-receipt"
  /** Capture and deletion receipts. */
  readonly umo_id?: string
  /** Deletion and erasure receipts. */
  readonly deleted_at?: string
  /** Erasure receipts: the memories erased, in id order, their count and the first entry's seq. */
  readonly umo_ids?: ReadonlyArray<string>
  readonly count?: number
  readonly first_seq?: number
  /** Erasure receipts of the expiry sweeper: `expired` (a caller's erasure has none). */
  readonly reason?: "expired"
  readonly entry: LedgerEntry
}

/** The chain entry kind each receipt type must carry. */
const entryKinds: Readonly<Record<string, string>> = {
  "umo-capture-receipt": "capture",
  "umo-deletion-receipt": "delete",
  "umo-erasure-receipt": "delete"
}

/** Whether the claims' entry is the one a receipt of their type must carry. */
export const claimsConsistent = (claims: ReceiptClaims): boolean => {
  const kind = entryKinds[String(claims.type)]
  if (kind === undefined || claims.entry?.kind !== kind) return false
  if (claims.type !== "umo-erasure-receipt") return claims.entry.umo_id === claims.umo_id
  const ids = claims.umo_ids
  return (
    Array.isArray(ids) &&
    ids.length > 0 &&
    claims.count === ids.length &&
    ids.at(-1) === claims.entry.umo_id &&
    claims.first_seq === claims.entry.seq - ids.length + 1
  )
}

/** A JSON object from canonical base64url, or undefined (for anything else, `null` and arrays too). */
const parseJson = (text: string): Record<string, unknown> | undefined => {
  const bytes = strictBase64url(text)
  if (bytes === undefined) return undefined
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Checks a capture, deletion or erasure receipt (compact JWS, EdDSA) offline and returns its claims; throws
 * a `VerificationError` when it is malformed, not signed by a trusted key, or not a UMO receipt.
 * `rotations` (e.g. from a fresh JWK Set) lets a key you pinned vouch for its successors.
 */
export const verifyReceipt = async (
  receipt: string,
  keys: VerificationKeys,
  rotations?: ReadonlyArray<KeyRotation>
): Promise<ReceiptClaims> => {
  const parts = receipt.split(".")
  if (parts.length !== 3) throw new VerificationError("a receipt is a compact JWS of three parts")
  const [header, payload, signature] = parts as [string, string, string]
  const protectedHeader = parseJson(header) as { alg?: unknown; kid?: unknown } | undefined
  const claims = parseJson(payload) as ReceiptClaims | undefined
  if (protectedHeader === undefined || claims === undefined)
    throw new VerificationError("the receipt is not valid base64url JSON")
  if (protectedHeader.alg !== "EdDSA") throw new VerificationError("the receipt is not signed with EdDSA")
  const ring = trusted(keys, rotations)
  // The service names its key; a receipt that does not may be checked against every trusted key.
  const candidates =
    protectedHeader.kid === undefined
      ? [...ring.values()]
      : [ring.get(String(protectedHeader.kid))].filter((k) => k !== undefined)
  if (!candidates.some((jwk) => verifySignature(`${header}.${payload}`, signature, jwk)))
    throw new VerificationError("the receipt's signature does not match a trusted key")
  if (!claimsConsistent(claims)) throw new VerificationError("not a UMO capture, deletion or erasure receipt")
  if (!verifyEntry(claims.entry, ring))
    throw new VerificationError("the chain entry inside the receipt does not verify")
  return claims
}
