/**
 * Offline checks of what the service signed, with WebCrypto only (Ed25519, SHA-256): a proof's
 * capture entry and a deletion receipt. Give the service's public key as you pinned it — a JWK or
 * the JWK Set from `GET /.well-known/jwks.json` — not the copy inside the response being checked.
 */
import { VerificationError } from "./errors.js"
import type { LedgerEntry, Proof } from "./models.js"

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

/** A public JWK (OKP, Ed25519) or a JWK Set holding it. */
export type PublicKey = Jwk | { readonly keys: ReadonlyArray<Jwk> }

/** The claims of a receipt: of a capture (`capture` returns it) or of a deletion (`forget`). */
export interface ReceiptClaims {
  readonly type: "umo-capture-receipt" | "umo-deletion-receipt"
  readonly umo_id: string
  /** Deletion receipts only. */
  readonly deleted_at?: string
  readonly entry: LedgerEntry
}

/** The chain entry kind each receipt type must carry. */
const entryKinds: Record<string, string> = {
  "umo-capture-receipt": "capture",
  "umo-deletion-receipt": "delete"
}

const encoder = new TextEncoder()

const hex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

const sha256Hex = async (text: string) => hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)))

const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> => {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/")
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

/** The key named `kid` (a JWK Set), or the single key when its `kid` is absent or matches. */
const keyFor = (publicKey: PublicKey, kid: string): Jwk | undefined => {
  const keys = Array.isArray(publicKey.keys) ? (publicKey.keys as ReadonlyArray<Jwk>) : [publicKey as Jwk]
  return keys.find((k) => k.kid === undefined || k.kid === kid)
}

const verifySignature = async (publicKey: PublicKey, kid: string, message: string, signature: string) => {
  const jwk = keyFor(publicKey, kid)
  if (jwk === undefined) return false
  try {
    // `as never`: the platform's JsonWebKey type differs between DOM and Node typings; both accept it.
    const key = await crypto.subtle.importKey("jwk", jwk as never, { name: "Ed25519" }, false, ["verify"])
    return await crypto.subtle.verify(
      { name: "Ed25519" },
      key,
      fromBase64Url(signature),
      encoder.encode(message)
    )
  } catch {
    return false
  }
}

/**
 * `entry_hash` as the service computes it: SHA-256 of the RFC 8785 canonical JSON of the entry's
 * fields. They are strings and one integer, so sorted keys and `JSON.stringify` are canonical.
 */
export const entryHash = (entry: LedgerEntry): Promise<string> =>
  sha256Hex(
    JSON.stringify({
      account_id: entry.account_id,
      content_hash: entry.content_hash,
      kind: entry.kind,
      prev_hash: entry.prev_hash,
      record_hash: entry.record_hash,
      recorded_at: entry.recorded_at,
      semantic_hash: entry.semantic_hash,
      seq: entry.seq,
      umo_id: entry.umo_id
    })
  )

/** Whether a chain entry's hash matches its fields and the service signed it. */
export const verifyEntry = async (entry: LedgerEntry, publicKey: PublicKey): Promise<boolean> =>
  entry.entry_hash === (await entryHash(entry)) &&
  verifySignature(publicKey, entry.key_id, entry.entry_hash, entry.signature)

/**
 * Whether a proof holds up offline: its capture entry is signed with `publicKey`, names this
 * memory and its content and semantic hashes, and — when `content` is given (the text `ask`
 * returns) — the content hashes to the recorded value.
 */
export const verifyProof = async (proof: Proof, publicKey: PublicKey, content?: string): Promise<boolean> => {
  const entry = proof.entry
  return (
    entry !== null &&
    entry.kind === "capture" &&
    entry.umo_id === proof.umoId &&
    entry.content_hash === proof.contentHash &&
    entry.semantic_hash === proof.semanticHash &&
    (content === undefined || (await sha256Hex(content)) === proof.contentHash) &&
    (await verifyEntry(entry, publicKey))
  )
}

/**
 * Checks a capture or deletion receipt (compact JWS, EdDSA) offline and returns its claims; throws
 * a `VerificationError` when it is malformed, not signed with `publicKey`, or not a UMO receipt.
 */
export const verifyReceipt = async (receipt: string, publicKey: PublicKey): Promise<ReceiptClaims> => {
  const parts = receipt.split(".")
  if (parts.length !== 3) throw new VerificationError("a receipt is a compact JWS of three parts")
  const [header, payload, signature] = parts as [string, string, string]
  let protectedHeader: { alg?: string; kid?: string }
  let claims: ReceiptClaims
  try {
    const decoder = new TextDecoder()
    protectedHeader = JSON.parse(decoder.decode(fromBase64Url(header)))
    claims = JSON.parse(decoder.decode(fromBase64Url(payload)))
  } catch {
    throw new VerificationError("the receipt is not valid base64url JSON")
  }
  if (protectedHeader.alg !== "EdDSA") throw new VerificationError("the receipt is not signed with EdDSA")
  if (!(await verifySignature(publicKey, protectedHeader.kid ?? "", `${header}.${payload}`, signature)))
    throw new VerificationError("the receipt's signature does not match the public key")
  const kind = entryKinds[claims.type]
  if (kind === undefined || claims.entry?.kind !== kind || claims.entry.umo_id !== claims.umo_id)
    throw new VerificationError("not a UMO capture or deletion receipt")
  if (!(await verifyEntry(claims.entry, publicKey)))
    throw new VerificationError("the chain entry inside the receipt does not verify")
  return claims
}
