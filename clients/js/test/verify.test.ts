import { generateKeyPairSync, sign } from "node:crypto"
import {
  trustedKeys as clientTrustedKeys,
  verifyProof as clientVerifyProof,
  verifyReceipt as clientVerifyReceipt,
  type KeyRotation,
  Proof
} from "@umo/client"
import {
  entryHash,
  genesisHash,
  type LedgerEntry,
  publicSigningJwk,
  type SigningKeyRecord,
  sha256Hex,
  signKeyRecord,
  trustedKeys,
  verifyProof,
  verifyReceipt
} from "@umo/core"
import fc from "fast-check"
import type { JWK } from "jose"
import { describe, expect, it } from "vitest"

const newKey = () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519")
  const jwk = publicSigningJwk(publicKey.export({ format: "jwk" }) as JWK)
  return {
    jwk,
    kid: jwk.kid!,
    sign: (m: string) => sign(null, Buffer.from(m), privateKey).toString("base64url")
  }
}
type Key = ReturnType<typeof newKey>

const keys = Array.from({ length: 6 }, newKey)

const record = (seq: number, key: Key, previous: Key | null): SigningKeyRecord => ({
  type: "umo-signing-key",
  seq,
  key: key.jwk,
  previous: previous?.jwk ?? null,
  created_at: "2026-11-23T00:00:00.000Z"
})

/** Any record over the six keys: honest rotations, records signed by one key only, forks. */
const Record = fc
  .record({
    key: fc.nat(5),
    previous: fc.option(fc.nat(5)),
    signers: fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 })
  })
  .map(({ key, previous, signers }): KeyRotation => {
    const prev = previous === null ? null : keys[previous]!
    return signKeyRecord(
      record(prev === null ? 1 : 2, keys[key]!, prev),
      signers.map((i) => keys[i]!)
    )
  })

describe("verifyProof's key ring in @umo/client", () => {
  it("trusts exactly the keys @umo/core trusts, for any pinned keys and records (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }),
        fc.array(Record, { maxLength: 8 }),
        async (pinned, rotations) => {
          const set = { keys: pinned.map((i) => keys[i]!.jwk) }
          const byClient = await clientTrustedKeys(set, rotations)
          const byCore = trustedKeys(set, rotations)
          expect([...byClient.keys()].sort()).toEqual([...byCore.keys()].sort())
        }
      ),
      { numRuns: 200 }
    )
  })

  it("follows an honest ring both ways and not past a fork", async () => {
    const [a, b, c, x] = keys as [Key, Key, Key, Key]
    const ring = [
      signKeyRecord(record(1, a, null), [a]),
      signKeyRecord(record(2, b, a), [a, b]),
      signKeyRecord(record(3, c, b), [b, c])
    ]
    expect([...(await clientTrustedKeys(a.jwk, ring)).keys()].sort()).toEqual([a.kid, b.kid, c.kid].sort())
    expect([...(await clientTrustedKeys(c.jwk, ring)).keys()].sort()).toEqual([a.kid, b.kid, c.kid].sort())
    const fork = signKeyRecord(record(2, x, a), [a, x])
    expect([...(await clientTrustedKeys({ keys: [a.jwk], rotations: ring }, [fork])).keys()]).toEqual([a.kid])
  })
})

const [signer, stranger] = keys as [Key, Key]

/** A chain entry signed by `by`: of a capture or a deletion. */
const entryOf = (kind: "capture" | "delete", by: Key, fields: Partial<LedgerEntry> = {}): LedgerEntry => {
  const unsigned = {
    account_id: "0b9e8d8e-2d7a-4c1b-9a51-0d1f2e3a4b5c",
    seq: 1,
    kind,
    umo_id: "019a0000-0000-7000-8000-000000000001",
    content_hash: sha256Hex("Ada wrote the first program."),
    semantic_hash: "b".repeat(64),
    record_hash: "c".repeat(64),
    recorded_at: "2026-01-01T00:00:00.000Z",
    prev_hash: genesisHash,
    ...fields
  }
  const entry_hash = entryHash(unsigned)
  return { ...unsigned, entry_hash, signature: by.sign(entry_hash), key_id: by.kid }
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const faults = [
  "entry signed by a stranger",
  "receipt signed by a stranger",
  "entry of another memory",
  "other receipt type",
  "unknown receipt type",
  "alg ES256",
  "kid of a stranger",
  "no kid",
  "content_hash changed",
  "seq changed",
  "prev_hash changed",
  "signature changed",
  "proof claims other hashes",
  "other content"
] as const

/** An honest receipt and proof of a capture or a deletion, with none, one or two faults. */
const Evidence = fc.record({
  kind: fc.constantFrom("capture" as const, "delete" as const),
  faults: fc.uniqueArray(fc.constantFrom(...faults), { maxLength: 2 }),
  flipAt: fc.nat(85),
  withContent: fc.boolean()
})

describe("verifyProof and verifyReceipt in @umo/client", () => {
  it("pass and fail exactly where @umo/core's do, for any receipt or proof (property)", async () => {
    const outcomes = new Set<string>()
    await fc.assert(
      fc.asyncProperty(Evidence, async (e) => {
        const has = (fault: (typeof faults)[number]) => e.faults.includes(fault)
        const umo_id = "019a0000-0000-7000-8000-000000000001"
        const signed = entryOf(e.kind, has("entry signed by a stranger") ? stranger : signer, {
          umo_id: has("entry of another memory") ? "019a0000-0000-7000-8000-000000000002" : umo_id
        })
        const changed = (["content_hash", "seq", "prev_hash"] as const).find((f) => has(`${f} changed`))
        const entry =
          changed === undefined
            ? signed
            : { ...signed, [changed]: changed === "seq" ? 2 : `${signed[changed]}0` }
        const type = e.kind === "capture" ? "umo-capture-receipt" : "umo-deletion-receipt"
        const header = base64url({
          alg: has("alg ES256") ? "ES256" : "EdDSA",
          ...(has("no kid") ? {} : { kid: (has("kid of a stranger") ? stranger : signer).kid })
        })
        const payload = base64url({
          type: has("unknown receipt type")
            ? "receipt"
            : has("other receipt type")
              ? type === "umo-capture-receipt"
                ? "umo-deletion-receipt"
                : "umo-capture-receipt"
              : type,
          umo_id,
          entry
        })
        let signature = (has("receipt signed by a stranger") ? stranger : signer).sign(`${header}.${payload}`)
        if (has("signature changed")) {
          const at = e.flipAt % signature.length
          signature = `${signature.slice(0, at)}${signature[at] === "A" ? "B" : "A"}${signature.slice(at + 1)}`
        }
        const receipt = `${header}.${payload}.${signature}`
        const outcome = (check: Promise<unknown>) =>
          check.then(
            () => "verified",
            (error: Error) => error.message
          )
        const pinned = { keys: [signer.jwk] }
        const byCore = await outcome(verifyReceipt(receipt, pinned))
        expect(await outcome(clientVerifyReceipt(receipt, pinned))).toBe(byCore)

        const hashes = {
          content_hash: has("proof claims other hashes") ? "d".repeat(64) : entry.content_hash,
          semantic_hash: entry.semantic_hash
        }
        const content = e.withContent
          ? `Ada wrote the first program${has("other content") ? "" : "."}`
          : undefined
        const proved = verifyProof({ umo_id, ...hashes, entry, rotations: [] }, pinned, content)
        const wire = new Proof({ umo_id, audit_proof: hashes, chain: entry, rotations: [] })
        expect(await clientVerifyProof(wire, pinned, content)).toBe(proved)
        outcomes.add(byCore).add(`proof ${proved}`)
      }),
      { numRuns: 300 }
    )
    // Both sides of every check were exercised: honest evidence passes, and each kind of fault fails.
    expect(outcomes).toContain("verified")
    expect(outcomes).toContain("proof true")
    expect(outcomes).toContain("proof false")
    expect(outcomes.size).toBeGreaterThanOrEqual(6)
  })
})

describe("an erasure receipt of 10,000 memories", () => {
  it("verifies in @umo/core and @umo/client alike, and a changed one in neither", async () => {
    const umo_ids = Array.from(
      { length: 10_000 },
      (_, i) => `019a0000-0000-7000-8000-${String(i).padStart(12, "0")}`
    )
    const entry = entryOf("delete", signer, { umo_id: umo_ids.at(-1)!, seq: 10_000 })
    const header = base64url({ alg: "EdDSA", kid: signer.kid })
    const claims = {
      type: "umo-erasure-receipt",
      count: umo_ids.length,
      umo_ids,
      deleted_at: entry.recorded_at,
      first_seq: 1,
      entry
    }
    const receipt = (payload: string) =>
      `${header}.${payload}.${signer.sign(`${header}.${base64url(claims)}`)}`
    const pinned = { keys: [signer.jwk] }
    // Hundreds of kilobytes of JWS: the client's base64 must not spread them over the stack.
    expect((await clientVerifyReceipt(receipt(base64url(claims)), pinned)).umo_ids).toHaveLength(10_000)
    expect((await verifyReceipt(receipt(base64url(claims)), pinned)).umo_ids).toHaveLength(10_000)
    const changed = base64url({ ...claims, umo_ids: umo_ids.slice(1) })
    await expect(clientVerifyReceipt(receipt(changed), pinned)).rejects.toThrow()
    await expect(verifyReceipt(receipt(changed), pinned)).rejects.toThrow()
  })
})
