import { generateKeyPairSync, sign } from "node:crypto"
import { trustedKeys as clientTrustedKeys, type KeyRotation } from "@umo/client"
import { publicSigningJwk, type SigningKeyRecord, signKeyRecord, trustedKeys } from "@umo/core"
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
