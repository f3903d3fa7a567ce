import { randomBytes } from "node:crypto"
import { sha256Hex } from "@umo/core"

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

const randomText = (length: number): string => {
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let out = ""
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62]
    }
  }
  return out
}

export interface NewKey {
  /** The whole key: shown once, never stored. */
  readonly key: string
  /** Its public prefix: safe to show, log and revoke by. */
  readonly keyId: string
  /** What is stored: the SHA-256 of the key. */
  readonly keyHash: string
}

/** A new API key: `umo_` + 8 id characters + 32 secret characters (190 bits of randomness). */
export const generateKey = (): NewKey => {
  const keyId = `umo_${randomText(8)}`
  const key = `${keyId}${randomText(32)}`
  return { key, keyId, keyHash: sha256Hex(key) }
}

/** Where a generated key appears in text: `umo_`, the 8-character id, the 32-character secret. */
const keyInText = /umo_[0-9A-Za-z]{40}/g
const keyPattern = new RegExp(`^${keyInText.source}$`)

/**
 * The text with every generated key in it cut down to its public id (`umo_abcdefgh[secret]`): for
 * what the server logs of a request, where a caller may have pasted a key into the path.
 */
export const withoutKeys = (text: string): string =>
  text.replace(keyInText, (key) => `${key.slice(0, 12)}[secret]`)

/**
 * The id and hash under which a key given in configuration (`UMO_API_KEYS="key=account,…"`) is
 * stored: a key of ours keeps its prefix as id; any other string gets an id derived from its hash.
 */
export const configuredKey = (key: string): { readonly keyId: string; readonly keyHash: string } => ({
  keyId: keyPattern.test(key) ? key.slice(0, 12) : `cfg_${sha256Hex(key).slice(0, 8)}`,
  keyHash: sha256Hex(key)
})
