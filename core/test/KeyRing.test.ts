import { generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import {
  type KeyRotation,
  keyThumbprint,
  openKeyRecord,
  publicSigningJwk,
  type SigningKeyRecord,
  signKeyRecord,
  trustedKeys
} from "@umo/core"
import fc from "fast-check"
import type { JWK } from "jose"
import { describe, expect, it } from "vitest"

interface TestKey {
  readonly privateKey: KeyObject
  readonly jwk: JWK
  readonly kid: string
  readonly sign: (message: string) => string
}

const newKey = (): TestKey => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519")
  const jwk = publicSigningJwk(publicKey.export({ format: "jwk" }) as JWK)
  return {
    privateKey,
    jwk,
    kid: jwk.kid!,
    sign: (message) => sign(null, Buffer.from(message), privateKey).toString("base64url")
  }
}

const record = (seq: number, key: TestKey, previous: TestKey | null): SigningKeyRecord => ({
  type: "umo-signing-key",
  seq,
  key: key.jwk,
  previous: previous?.jwk ?? null,
  created_at: "2026-11-23T00:00:00.000Z"
})

/** A ring of `n` keys: the first record signed by its key, each rotation by both keys. */
const ring = (n: number) => {
  const keys = Array.from({ length: n }, newKey)
  const rotations = keys.map((key, i) =>
    signKeyRecord(record(i + 1, key, keys[i - 1] ?? null), i === 0 ? [key] : [keys[i - 1]!, key])
  )
  return { keys, rotations }
}

// Keys are slow to make: a few rings serve every property run.
const rings = [ring(1), ring(2), ring(4)]

describe("key ring", () => {
  it("names a key by its RFC 7638 thumbprint", () => {
    // RFC 8037 appendix A.3: the thumbprint of the example Ed25519 key.
    const example = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }
    expect(keyThumbprint(example)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
  })

  it("trusts, from any pinned key of a ring, every key of it, in both directions (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...rings), fc.nat(), fc.boolean(), ({ keys, rotations }, pick, fromSet) => {
        const pinned = keys[pick % keys.length]!
        const trusted = fromSet
          ? trustedKeys({ keys: [pinned.jwk], rotations })
          : trustedKeys(pinned.jwk, rotations)
        expect([...trusted.keys()].sort()).toEqual(keys.map((k) => k.kid).sort())
      }),
      { numRuns: 50 }
    )
  })

  it("opens honest records and refuses every record with one character changed (property)", () => {
    const { rotations } = rings[2]!
    for (const rotation of rotations) expect(openKeyRecord(rotation)).toBeDefined()
    const text = (r: KeyRotation) => JSON.stringify(r)
    fc.assert(
      fc.property(
        fc.constantFrom(...rotations),
        fc.nat(),
        fc.constantFrom(..."AQgw-_xyz0"),
        (rotation, at, replacement) => {
          const original = text(rotation)
          // Change one character inside the payload or a signature (the parts a signature covers).
          const parts = [rotation.payload, ...rotation.signatures.flatMap((s) => [s.protected, s.signature])]
          const part = parts[at % parts.length]!
          const i = at % part.length
          if (part[i] === replacement) return
          const changed = original.replace(part, part.slice(0, i) + replacement + part.slice(i + 1))
          let parsed: KeyRotation | undefined
          try {
            parsed = JSON.parse(changed)
          } catch {
            return
          }
          expect(openKeyRecord(parsed!)).toBeUndefined()
        }
      ),
      { numRuns: 300 }
    )
  })

  it("refuses a signature re-encoded in another base64url form that decodes to the same bytes", () => {
    const rotation = rings[1]!.rotations[1]!
    const signature = rotation.signatures[0]!.signature
    // 64 bytes are 86 characters: the last one carries 2 bits and 4 unused ones.
    const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(signature.at(-1)!)
    const sibling = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last ^ 1]!
    const reencoded = signature.slice(0, -1) + sibling
    expect(Buffer.from(reencoded, "base64url")).toEqual(Buffer.from(signature, "base64url"))
    const changed = {
      ...rotation,
      signatures: [{ ...rotation.signatures[0]!, signature: reencoded }, ...rotation.signatures.slice(1)]
    }
    expect(openKeyRecord(changed)).toBeUndefined()
  })

  it("lets no record make an unendorsed key trusted", () => {
    const { keys, rotations } = rings[1]!
    const [first, second] = keys as [TestKey, TestKey]
    const intruder = newKey()
    // Signed only by the intruder: it claims to succeed the first key, then to precede the second.
    const claims = [
      signKeyRecord(record(2, intruder, first), [intruder]),
      signKeyRecord(record(2, second, intruder), [intruder]),
      signKeyRecord(record(3, intruder, second), [intruder]),
      // A genesis record of its own links nothing.
      signKeyRecord(record(1, intruder, null), [intruder])
    ]
    for (const claim of claims) {
      const trusted = trustedKeys(first.jwk, [...rotations, claim])
      expect(trusted.has(intruder.kid)).toBe(false)
      expect(trusted.has(second.kid)).toBe(true)
    }
    // Without the real rotation record the second key is not trusted from the first.
    expect(trustedKeys(first.jwk, claims).has(second.kid)).toBe(false)
  })

  it("trusts neither successor when one key endorses two (a leaked retired key forking the ring)", () => {
    const { keys, rotations } = rings[1]!
    const [first, second] = keys as [TestKey, TestKey]
    const fork = newKey()
    // The first key, retired but leaked, endorses a second successor; both sign, as a record must.
    const forked = signKeyRecord(record(2, fork, first), [first, fork])
    const trusted = trustedKeys({ keys: [first.jwk], rotations }, [forked])
    expect(trusted.has(fork.kid)).toBe(false)
    expect(trusted.has(second.kid)).toBe(false)
    expect(trusted.has(first.kid)).toBe(true)
    // Without the real record to contradict it, a verifier pinned before the rotation cannot tell.
    expect(trustedKeys(first.jwk, [forked]).has(fork.kid)).toBe(true)
  })

  it("refuses a rotation signed by one of its two keys only", () => {
    const [a, b] = [newKey(), newKey()]
    expect(openKeyRecord(signKeyRecord(record(2, b, a), [a, b]))).toBeDefined()
    expect(openKeyRecord(signKeyRecord(record(2, b, a), [b]))).toBeUndefined()
    expect(openKeyRecord(signKeyRecord(record(2, b, a), [a]))).toBeUndefined()
    // A key given a kid that is not its thumbprint is not a key record's key.
    const misnamed = { ...record(2, b, a), key: { ...b.jwk, kid: a.kid } }
    expect(openKeyRecord(signKeyRecord(misnamed, [a, b]))).toBeUndefined()
  })
})
