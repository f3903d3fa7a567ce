import canonicalize from "canonicalize"

/**
 * Serializes a JSON value canonically (RFC 8785, JSON Canonicalization Scheme): object keys
 * sorted by UTF-16 code units, no whitespace, numbers in their shortest ECMAScript form. Equal
 * values always give the same string, whatever the key order they were built with, which is what
 * makes hashes over structured data stable.
 *
 * Throws on values JSON cannot represent (NaN, Infinity, BigInt, cycles).
 */
export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError("canonicalJson: value has no JSON form")
  return text
}
