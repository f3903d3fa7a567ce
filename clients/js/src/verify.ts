/**
 * Offline checks of what the service signed, with WebCrypto only (Ed25519, SHA-256): a proof's
 * capture entry and capture or deletion receipts. Give the keys you pinned — a JWK, or the JWK Set
 * from `GET /.well-known/jwks.json` — not the copy inside the response being checked. When the
 * service has rotated its key since, the key records (`rotations`: in a proof, in a freshly
 * fetched JWK Set) are followed: each is signed by the outgoing and the incoming key, so trust
 * passes from a pinned key to its successors (and back to its predecessors) and to no other key.
 */
import { VerificationError } from "./errors.js"
import type { Proof } from "./models.js"
import type { Jwk, KeyRotation, LedgerEntry, PublicKey, SigningKeySet } from "./signed.js"

export type { Jwk, KeyRotation, PublicKey, SigningKeySet } from "./signed.js"

/**
 * The claims of a receipt: of a capture (`capture` returns it), of a deletion (`forget`), or of an
 * erasure of many memories (`forgetAll`: their ids and count; `entry` is the last deletion entry,
 * whose hash covers the ones before it, from `first_seq`).
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
const entryKinds: Record<string, string> = {
  "umo-capture-receipt": "capture",
  "umo-deletion-receipt": "delete",
  "umo-erasure-receipt": "delete"
}

/** Whether the claims' entry is the one a receipt of their type must carry. */
const claimsConsistent = (claims: ReceiptClaims): boolean => {
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

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const hex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

const sha256Hex = async (text: string) => hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)))

/** Bytes as a binary string, a slice at a time: spreading a long receipt's bytes overflows the stack. */
const binaryString = (bytes: Uint8Array) => {
  let text = ""
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return text
}

const toBase64Url = (bytes: Uint8Array) =>
  btoa(binaryString(bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

/**
 * Decodes base64url in its canonical form only: texts that differ in the unused bits of their last
 * character decode to the same bytes, and a changed signature must not pass for the original.
 */
const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/")
  let binary: string
  try {
    binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4))
  } catch {
    return undefined
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
  return toBase64Url(bytes) === text ? bytes : undefined
}

const isEd25519 = (jwk: unknown): jwk is Jwk =>
  typeof jwk === "object" &&
  jwk !== null &&
  (jwk as Jwk).kty === "OKP" &&
  (jwk as Jwk).crv === "Ed25519" &&
  typeof (jwk as Jwk).x === "string"

/** RFC 7638 thumbprint of an Ed25519 key: the `key_id` its entries name. */
export const keyThumbprint = async (jwk: Jwk): Promise<string> =>
  toBase64Url(
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        encoder.encode(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
      )
    )
  )

const verifySignature = async (jwk: Jwk, message: string, signature: string) => {
  const bytes = fromBase64Url(signature)
  if (bytes === undefined) return false
  try {
    // `as never`: the platform's JsonWebKey type differs between DOM and Node typings; both accept it.
    const key = await crypto.subtle.importKey(
      "jwk",
      { kty: jwk.kty, crv: jwk.crv, x: jwk.x } as never,
      { name: "Ed25519" },
      false,
      ["verify"]
    )
    return await crypto.subtle.verify({ name: "Ed25519" }, key, bytes, encoder.encode(message))
  } catch {
    return false
  }
}

/** A JSON object from base64url bytes, or undefined (for anything else, `null` and arrays too). */
const parseJson = (bytes: Uint8Array | undefined): Record<string, unknown> | undefined => {
  if (bytes === undefined) return undefined
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes))
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

const signedBy = async (rotation: KeyRotation, jwk: Jwk, kid: string) => {
  for (const s of rotation.signatures) {
    const header = parseJson(fromBase64Url(s.protected)) as { alg?: string; kid?: string } | undefined
    if (
      header?.alg === "EdDSA" &&
      header.kid === kid &&
      (await verifySignature(jwk, `${s.protected}.${rotation.payload}`, s.signature))
    )
      return true
  }
  return false
}

/** The keys a rotation links (its key and the one it replaced), when both signed it. */
const openRotation = async (rotation: KeyRotation): Promise<readonly [Jwk, Jwk] | undefined> => {
  if (typeof rotation?.payload !== "string" || !Array.isArray(rotation.signatures)) return undefined
  const record = parseJson(fromBase64Url(rotation.payload)) as
    | { type?: string; key?: unknown; previous?: unknown }
    | undefined
  if (record?.type !== "umo-signing-key" || !isEd25519(record.key) || !isEd25519(record.previous))
    return undefined
  const [key, previous] = [record.key, record.previous]
  const [keyId, previousId] = [await keyThumbprint(key), await keyThumbprint(previous)]
  if (key.kid !== keyId || previous.kid !== previousId) return undefined
  return (await signedBy(rotation, key, keyId)) && (await signedBy(rotation, previous, previousId))
    ? [previous, key]
    : undefined
}

/**
 * The keys to trust, by thumbprint: the pinned ones and every key a chain of verified key records
 * links to them (the records in the pinned JWK Set and in `rotations`). Records that fork the ring
 * (one key endorsing two successors) link nothing.
 */
export const trustedKeys = async (
  pinned: PublicKey,
  rotations: ReadonlyArray<KeyRotation> = []
): Promise<Map<string, Jwk>> => {
  const list = Array.isArray((pinned as SigningKeySet).keys)
    ? (pinned as SigningKeySet).keys
    : [pinned as Jwk]
  const trusted = new Map<string, Jwk>()
  for (const jwk of list) if (isEd25519(jwk)) trusted.set(await keyThumbprint(jwk), jwk)
  const links: Array<readonly [string, Jwk, string, Jwk]> = []
  for (const rotation of [...((pinned as SigningKeySet).rotations ?? []), ...rotations]) {
    const link = await openRotation(rotation)
    if (link) links.push([link[0].kid as string, link[0], link[1].kid as string, link[1]])
  }
  // A key is followed by one key and follows one key: records that fork the ring link nothing.
  const count = (index: 0 | 2, kid: string) =>
    new Set(links.filter((l) => l[index] === kid).map((l) => l[2 - index])).size
  const unforked = links.filter(([a, , b]) => count(0, a) === 1 && count(2, b) === 1)
  for (let grew = true; grew; ) {
    grew = false
    for (const [a, previous, b, key] of unforked) {
      if (trusted.has(a) !== trusted.has(b)) {
        if (trusted.has(a)) trusted.set(b, key)
        else trusted.set(a, previous)
        grew = true
      }
    }
  }
  return trusted
}

/**
 * `entry_hash` as the service computes it: SHA-256 of the RFC 8785 canonical JSON of the entry's
 * fields. They are strings and one integer, so sorted keys and `JSON.stringify` are canonical. A
 * supersession entry also names its successor (`superseded_by`); other entries have no such field.
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
      ...(typeof entry.superseded_by === "string" ? { superseded_by: entry.superseded_by } : {}),
      umo_id: entry.umo_id
    })
  )

const trustedFrom = (keys: PublicKey | Map<string, Jwk>, rotations?: ReadonlyArray<KeyRotation>) =>
  keys instanceof Map ? Promise.resolve(keys) : trustedKeys(keys, rotations)

/** Whether a chain entry's hash matches its fields and a trusted key — the one it names — signed it. */
export const verifyEntry = async (
  entry: LedgerEntry,
  keys: PublicKey | Map<string, Jwk>,
  rotations?: ReadonlyArray<KeyRotation>
): Promise<boolean> => {
  const jwk = (await trustedFrom(keys, rotations)).get(entry.key_id)
  return (
    jwk !== undefined &&
    entry.entry_hash === (await entryHash(entry)) &&
    verifySignature(jwk, entry.entry_hash, entry.signature)
  )
}

/** A superseded memory's supersession entry names it and its successor, and is signed by a trusted key. */
const successionHolds = async (proof: Proof, publicKey: PublicKey) => {
  if (proof.supersededBy === null) return true
  const entry = proof.supersession
  return (
    entry !== null &&
    entry.kind === "supersede" &&
    entry.umo_id === proof.umoId &&
    entry.superseded_by === proof.supersededBy &&
    (await verifyEntry(entry, publicKey, proof.rotations))
  )
}

/**
 * Whether a proof holds up offline: its capture entry is signed by a key you pinned (or one the
 * proof's key records link to it), names this memory and its content and semantic hashes, and —
 * when `content` is given (the text `ask` returns) — the content hashes to the recorded value; a
 * superseded memory's proof also carries the signed entry naming its successor.
 */
export const verifyProof = async (proof: Proof, publicKey: PublicKey, content?: string): Promise<boolean> => {
  const entry = proof.entry
  return (
    (await successionHolds(proof, publicKey)) &&
    entry !== null &&
    entry.kind === "capture" &&
    entry.umo_id === proof.umoId &&
    entry.content_hash === proof.contentHash &&
    entry.semantic_hash === proof.semanticHash &&
    (content === undefined || (await sha256Hex(content)) === proof.contentHash) &&
    (await verifyEntry(entry, publicKey, proof.rotations))
  )
}

/**
 * Checks a capture, deletion or erasure receipt (compact JWS, EdDSA) offline and returns its claims; throws
 * a `VerificationError` when it is malformed, not signed by a trusted key, or not a UMO receipt.
 * `rotations` (e.g. from a fresh `signingKeys()`) lets a key you pinned vouch for its successors.
 */
export const verifyReceipt = async (
  receipt: string,
  publicKey: PublicKey,
  rotations?: ReadonlyArray<KeyRotation>
): Promise<ReceiptClaims> => {
  const parts = receipt.split(".")
  if (parts.length !== 3) throw new VerificationError("a receipt is a compact JWS of three parts")
  const [header, payload, signature] = parts as [string, string, string]
  const protectedHeader = parseJson(fromBase64Url(header)) as { alg?: string; kid?: string } | undefined
  const claims = parseJson(fromBase64Url(payload)) as ReceiptClaims | undefined
  if (protectedHeader === undefined || claims === undefined)
    throw new VerificationError("the receipt is not valid base64url JSON")
  if (protectedHeader.alg !== "EdDSA") throw new VerificationError("the receipt is not signed with EdDSA")
  const trusted = await trustedFrom(publicKey, rotations)
  const candidates =
    protectedHeader.kid === undefined
      ? [...trusted.values()]
      : [trusted.get(protectedHeader.kid)].filter((k) => !!k)
  let signed = false
  for (const jwk of candidates as Array<Jwk>) {
    if (await verifySignature(jwk, `${header}.${payload}`, signature)) signed = true
  }
  if (!signed) throw new VerificationError("the receipt's signature does not match a trusted key")
  if (!claimsConsistent(claims)) throw new VerificationError("not a UMO capture, deletion or erasure receipt")
  if (!(await verifyEntry(claims.entry, trusted)))
    throw new VerificationError("the chain entry inside the receipt does not verify")
  return claims
}
