import { generateKeyPairSync, sign } from "node:crypto"
import {
  entryHash,
  genesisHash,
  keyThumbprint,
  type LedgerEntry,
  sha256Hex,
  VerificationError,
  verifyEntry,
  verifyProof,
  verifyReceipt
} from "@umo/core"
import { CompactSign, type JWK } from "jose"
import { describe, expect, it } from "vitest"

const { privateKey, publicKey } = generateKeyPairSync("ed25519")
const jwk = publicKey.export({ format: "jwk" }) as JWK
const content = "Ada wrote the first program."

const signedEntry = (fields: Partial<LedgerEntry> = {}): LedgerEntry => {
  const unsigned = {
    account_id: "0b9e8d8e-2d7a-4c1b-9a51-0d1f2e3a4b5c",
    seq: 1,
    kind: "capture" as const,
    umo_id: "019a0000-0000-7000-8000-000000000001",
    content_hash: sha256Hex(content),
    semantic_hash: "b".repeat(64),
    record_hash: "c".repeat(64),
    recorded_at: "2026-01-01T00:00:00.000Z",
    prev_hash: genesisHash,
    ...fields
  }
  const hash = entryHash(unsigned)
  return {
    ...unsigned,
    entry_hash: hash,
    signature: sign(null, Buffer.from(hash), privateKey).toString("base64url"),
    key_id: keyThumbprint(jwk)
  }
}

describe("offline verification", () => {
  it("accepts a signed entry and rejects any changed field or foreign key", () => {
    const entry = signedEntry()
    expect(verifyEntry(entry, jwk)).toBe(true)
    for (const field of [
      "seq",
      "umo_id",
      "content_hash",
      "semantic_hash",
      "record_hash",
      "recorded_at",
      "prev_hash"
    ] as const) {
      const changed = { ...entry, [field]: field === "seq" ? 2 : `${entry[field]}0` }
      expect(verifyEntry(changed, jwk), field).toBe(false)
    }
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }) as JWK
    expect(verifyEntry(entry, other)).toBe(false)
  })

  it("checks a proof against the entry and, when given, the content", () => {
    const entry = signedEntry()
    const proof = {
      umo_id: entry.umo_id,
      content_hash: entry.content_hash,
      semantic_hash: entry.semantic_hash,
      entry
    }
    expect(verifyProof(proof, jwk, content)).toBe(true)
    expect(verifyProof(proof, jwk, `${content} `)).toBe(false)
    expect(verifyProof({ ...proof, semantic_hash: "d".repeat(64) }, jwk)).toBe(false)
    expect(verifyProof({ ...proof, entry: null }, jwk)).toBe(false)
    // The entry must be this memory's: a valid proof of another memory proves nothing about it.
    expect(verifyProof({ ...proof, umo_id: "00000000-0000-7000-8000-000000000000" }, jwk)).toBe(false)
  })

  const receiptOf = (claims: object) =>
    new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "EdDSA", kid: keyThumbprint(jwk) })
      .sign(privateKey)

  it("verifies a capture receipt, and refuses one whose type does not match its entry", async () => {
    const entry = signedEntry()
    const claims = { type: "umo-capture-receipt", umo_id: entry.umo_id, entry }
    expect((await verifyReceipt(await receiptOf(claims), jwk)).entry).toEqual(entry)
    await expect(
      verifyReceipt(await receiptOf({ ...claims, type: "umo-deletion-receipt" }), jwk)
    ).rejects.toThrow(VerificationError)
    await expect(
      verifyReceipt(await receiptOf({ ...claims, umo_id: "019a0000-0000-7000-8000-000000000002" }), jwk)
    ).rejects.toThrow(/not a UMO capture, deletion or erasure receipt/)
    await expect(verifyReceipt("a.b", jwk)).rejects.toThrow(/three parts/)
  })

  it("verifies a deletion receipt and refuses a forged one", async () => {
    const entry = signedEntry({ kind: "delete", seq: 2 })
    const claims = {
      type: "umo-deletion-receipt",
      umo_id: entry.umo_id,
      deleted_at: entry.recorded_at,
      entry
    }
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(privateKey)
    expect((await verifyReceipt(jws, jwk)).umo_id).toBe(entry.umo_id)
    const forged = { ...claims, entry: { ...entry, content_hash: "e".repeat(64) } }
    const forgedJws = await new CompactSign(new TextEncoder().encode(JSON.stringify(forged)))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(privateKey)
    await expect(verifyReceipt(forgedJws, jwk)).rejects.toThrow(/does not verify/)
  })
})
