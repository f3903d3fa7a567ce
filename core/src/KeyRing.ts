/**
 * The signing key ring: which Ed25519 keys a verifier trusts, and how trust passes from one key to
 * the next when the service rotates its key.
 *
 * A key's identity is its RFC 7638 thumbprint (the `key_id` every chain entry names). The service
 * records each of its keys in a **key record**, a JWS in the general JSON serialization (RFC 7515
 * §7.2.1) whose payload names the key and the key before it:
 *
 * ```json
 * {"type":"umo-signing-key","seq":2,"key":{…JWK…},"previous":{…JWK…},"created_at":"…"}
 * ```
 *
 * A first key's record is signed by that key alone. A rotation's record is signed by **both** keys:
 * the outgoing key endorses its successor, and the successor acknowledges its predecessor. So a
 * verifier holding either key can extend its trust to the other, and nobody holding neither can
 * make a key trusted: a row written into the database behind the service's back carries no
 * signature of a trusted key.
 * @module
 */
import { createHash, createPublicKey, verify } from "node:crypto"
import { Schema } from "effect"
import type { JWK } from "jose"

/** A key record: a JWS in the general JSON serialization, with one or two signatures. */
export const KeyRotation = Schema.Struct({
  payload: Schema.String,
  signatures: Schema.Array(Schema.Struct({ protected: Schema.String, signature: Schema.String }))
})
export type KeyRotation = typeof KeyRotation.Type

/** What a key record says, once its signatures check out. */
export interface SigningKeyRecord {
  readonly type: "umo-signing-key"
  /** Position in the service's key ring, from 1. */
  readonly seq: number
  readonly key: JWK
  /** The key this one replaced, or null for the ring's first key. */
  readonly previous: JWK | null
  readonly created_at: string
}

/** The service's keys as `GET /.well-known/jwks.json` serves them: a JWK Set plus the key records. */
export interface SigningKeySet {
  readonly keys: ReadonlyArray<JWK>
  readonly rotations?: ReadonlyArray<KeyRotation> | undefined
}

/** What a verifier pins: one public JWK, or a JWK Set (whose own `rotations` are followed too). */
export type PinnedKeys = JWK | SigningKeySet

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")

/** RFC 7638 thumbprint (SHA-256, base64url) of an OKP public key: the key's `kid`. */
export const keyThumbprint = (jwk: JWK): string =>
  base64url(
    createHash("sha256")
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
      .digest()
  )

/** The public part of an Ed25519 JWK as the service publishes it, with its thumbprint as `kid`. */
export const publicSigningJwk = (jwk: JWK): JWK => ({
  kty: "OKP",
  crv: "Ed25519",
  x: String(jwk.x),
  kid: keyThumbprint(jwk),
  alg: "EdDSA",
  use: "sig"
})

/**
 * Decodes base64url only in its canonical form. Node's decoder ignores the unused bits of the last
 * character, so several texts decode to the same bytes; a stored signature or record changed that
 * way must still count as changed.
 */
export const strictBase64url = (text: string): Buffer | undefined => {
  const bytes = Buffer.from(text, "base64url")
  return bytes.toString("base64url") === text ? bytes : undefined
}

/** Checks an Ed25519 signature (base64url) over a UTF-8 message with a public JWK (OKP, Ed25519). */
export const verifySignature = (message: string, signature: string, publicJwk: JWK): boolean => {
  const bytes = strictBase64url(signature)
  if (bytes === undefined) return false
  try {
    const key = createPublicKey({
      key: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x } as never,
      format: "jwk"
    })
    return verify(null, Buffer.from(message, "utf8"), key, bytes)
  } catch {
    return false
  }
}

/** A signer of key records: a key's thumbprint and its Ed25519 signing function (base64url out). */
export interface RecordSigner {
  readonly kid: string
  readonly sign: (message: string) => string
}

/** Signs a key record with each signer (the new key, and for a rotation the outgoing key too). */
export const signKeyRecord = (
  record: SigningKeyRecord,
  signers: ReadonlyArray<RecordSigner>
): KeyRotation => {
  const payload = base64url(JSON.stringify(record))
  return {
    payload,
    signatures: signers.map((signer) => {
      const header = base64url(JSON.stringify({ alg: "EdDSA", kid: signer.kid }))
      return { protected: header, signature: signer.sign(`${header}.${payload}`) }
    })
  }
}

const signedBy = (rotation: KeyRotation, jwk: JWK): boolean => {
  const kid = keyThumbprint(jwk)
  return rotation.signatures.some((s) => {
    try {
      const header = JSON.parse(strictBase64url(s.protected)?.toString("utf8") ?? "")
      return (
        header.alg === "EdDSA" &&
        header.kid === kid &&
        verifySignature(`${s.protected}.${rotation.payload}`, s.signature, jwk)
      )
    } catch {
      return false
    }
  })
}

const isKey = (value: unknown): value is JWK =>
  typeof value === "object" &&
  value !== null &&
  (value as JWK).kty === "OKP" &&
  (value as JWK).crv === "Ed25519" &&
  typeof (value as JWK).x === "string" &&
  (value as JWK).kid === keyThumbprint(value as JWK)

/**
 * What a key record says, if it is well formed and signed by the key it names and, for a
 * rotation, by the key it replaced; undefined otherwise.
 */
export const openKeyRecord = (rotation: KeyRotation): SigningKeyRecord | undefined => {
  try {
    const record = JSON.parse(strictBase64url(rotation.payload)?.toString("utf8") ?? "") as SigningKeyRecord
    const wellFormed =
      record.type === "umo-signing-key" &&
      Number.isInteger(record.seq) &&
      record.seq >= 1 &&
      typeof record.created_at === "string" &&
      isKey(record.key) &&
      (record.previous === null || isKey(record.previous)) &&
      (record.previous === null) === (record.seq === 1)
    if (!wellFormed || !signedBy(rotation, record.key)) return undefined
    return record.previous === null || signedBy(rotation, record.previous) ? record : undefined
  } catch {
    return undefined
  }
}

const pinnedList = (pinned: PinnedKeys): ReadonlyArray<JWK> =>
  Array.isArray((pinned as SigningKeySet).keys) ? (pinned as SigningKeySet).keys : [pinned as JWK]

/**
 * The links of a ring that does not fork: a key is followed by one key and follows one key. Two
 * different successors of one key (a retired key that endorses a second successor, say, if it
 * leaked) make both links — and so both successors — untrusted, rather than picking one.
 */
const unforked = <L extends { readonly key: JWK; readonly previous: JWK }>(links: ReadonlyArray<L>) => {
  const successors = new Map<string, Set<string>>()
  const predecessors = new Map<string, Set<string>>()
  for (const { key, previous } of links) {
    const [a, b] = [keyThumbprint(previous), keyThumbprint(key)]
    successors.set(a, (successors.get(a) ?? new Set()).add(b))
    predecessors.set(b, (predecessors.get(b) ?? new Set()).add(a))
  }
  return links.filter(
    ({ key, previous }) =>
      successors.get(keyThumbprint(previous))!.size === 1 && predecessors.get(keyThumbprint(key))!.size === 1
  )
}

/**
 * The keys a verifier may trust: the pinned ones, and every key a chain of verified rotations
 * links to them, in either direction (a successor endorsed by a trusted key, or a predecessor
 * acknowledged by one). Rotations come from the pinned set and from `rotations` (a proof's, or a
 * freshly fetched JWK Set's): they need not be trusted themselves, since each is checked, and
 * records that fork the ring link nothing. Returns the trusted keys by thumbprint.
 */
export const trustedKeys = (
  pinned: PinnedKeys,
  rotations: ReadonlyArray<KeyRotation> = []
): ReadonlyMap<string, JWK> => {
  const trusted = new Map<string, JWK>()
  for (const jwk of pinnedList(pinned)) {
    if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string")
      trusted.set(keyThumbprint(jwk), publicSigningJwk(jwk))
  }
  const links = unforked(
    [...((pinned as SigningKeySet).rotations ?? []), ...rotations]
      .map(openKeyRecord)
      .filter((r): r is SigningKeyRecord & { previous: JWK } => r !== undefined && r.previous !== null)
  )
  let grew = true
  while (grew) {
    grew = false
    for (const { key, previous } of links) {
      const [a, b] = [keyThumbprint(previous), keyThumbprint(key)]
      if (trusted.has(a) !== trusted.has(b)) {
        const [kid, jwk] = trusted.has(a) ? [b, key] : [a, previous]
        trusted.set(kid, publicSigningJwk(jwk))
        grew = true
      }
    }
  }
  return trusted
}
