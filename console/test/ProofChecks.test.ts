/**
 * The console's provenance verdict (console/src/provenance/ProofChecks.ts) on real proofs from the
 * memory service in-process: it verifies an untouched proof, and names the check that fails when
 * the signature, the pinned key, the recorded hash or the text shown is not what it should be; for
 * a superseded memory, when the signed supersession entry is missing, forged or names another
 * successor — agreeing with the client's `verifyProof` each time.
 */
import { generateKeyPairSync } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Jwk, Memory, Proof, verifyProof } from "@umo/client"
import { type OpenMemory, openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkProof } from "../src/provenance/ProofChecks.js"

const text = "Rosalind Franklin photographed DNA at King's College London in 1952."

describe("checkProof", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "umo-console-proof-"))
  let umo: OpenMemory
  let memory: Memory
  let proof: Proof

  beforeAll(async () => {
    umo = await openMemory({ dataDir, account: "console", embedder: UseLiteEmbedder.layer() })
    const { umoId } = await umo.capture(text)
    memory = await umo.get(umoId)
    proof = await umo.verify(umoId)
  }, 120_000)

  afterAll(async () => {
    await umo.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const failed = (verdict: Awaited<ReturnType<typeof checkProof>>) =>
    verdict.checks.filter((check) => check.ok !== true).map((check) => check.label)

  it("verifies an untouched proof, and the text against its hash", async () => {
    const verdict = await checkProof(memory, proof, await umo.signingKeys(), text)
    expect(verdict.verified).toBe(true)
    expect(failed(verdict)).toEqual([])
  })

  it("names a forged signature", async () => {
    const entry = { ...(proof.raw.chain as Record<string, unknown>), signature: "A".repeat(86) }
    const verdict = await checkProof(
      memory,
      new Proof({ ...proof.raw, chain: entry }),
      await umo.signingKeys()
    )
    expect(verdict.verified).toBe(false)
    expect(failed(verdict)).toEqual(["The Ed25519 signature is valid"])
  })

  it("names a key that was not pinned, whatever key the proof carries", async () => {
    const stranger = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }) as Jwk
    const verdict = await checkProof(memory, proof, { keys: [stranger] })
    expect(verdict.verified).toBe(false)
    expect(failed(verdict)).toEqual([
      expect.stringContaining("is one pinned at sign-in"),
      "The Ed25519 signature is valid"
    ])
  })

  it("names a changed content hash and a text that does not match it", async () => {
    const entry = { ...(proof.raw.chain as Record<string, unknown>), content_hash: "0".repeat(64) }
    const tampered = await checkProof(
      memory,
      new Proof({ ...proof.raw, chain: entry }),
      await umo.signingKeys()
    )
    expect(failed(tampered)).toEqual(
      expect.arrayContaining(["Its content hash is this memory's", "The entry's hash matches its fields"])
    )
    const otherText = await checkProof(memory, proof, await umo.signingKeys(), `${text} (edited)`)
    expect(otherText.verified).toBe(false)
    expect(failed(otherText)).toEqual(["The text shown hashes to the recorded content hash"])
  })

  describe("a superseded memory", () => {
    let old: Memory
    let oldProof: Proof
    let newerId: string

    beforeAll(async () => {
      const first = await umo.capture("Ana lives in Lisbon.", { inferUpdates: false })
      const newer = await umo.capture("Ana moved to Porto.", {
        supersedes: [first.umoId],
        inferUpdates: false
      })
      newerId = newer.umoId
      old = await umo.get(first.umoId)
      oldProof = await umo.verify(first.umoId)
    }, 120_000)

    /** The proof with its supersession entry changed (or dropped, for null). */
    const withSupersession = (change: Record<string, unknown> | null) =>
      new Proof({
        ...oldProof.raw,
        supersession:
          change === null ? null : { ...(oldProof.raw.supersession as Record<string, unknown>), ...change }
      })

    it("verifies its proof, the signed supersession included", async () => {
      expect(old.supersededBy).toBe(newerId)
      expect(oldProof.supersession?.kind).toBe("supersede")
      const verdict = await checkProof(old, oldProof, await umo.signingKeys())
      expect(verdict.verified).toBe(true)
      expect(verdict.checks.map((check) => check.label)).toEqual(
        expect.arrayContaining([
          "The proof holds a signed supersession entry",
          "It names this memory and its successor"
        ])
      )
      expect(failed(verdict)).toEqual([])
    })

    it("names a missing supersession entry, as verifyProof refuses it", async () => {
      const proof = withSupersession(null)
      const verdict = await checkProof(old, proof, await umo.signingKeys())
      expect(verdict.verified).toBe(false)
      expect(await verifyProof(proof, await umo.signingKeys())).toBe(false)
      expect(failed(verdict)).toEqual(["The proof holds a signed supersession entry"])
    })

    it("names a forged supersession signature", async () => {
      const verdict = await checkProof(
        old,
        withSupersession({ signature: "A".repeat(86) }),
        await umo.signingKeys()
      )
      expect(verdict.verified).toBe(false)
      expect(failed(verdict)).toEqual(["The supersession's Ed25519 signature is valid"])
    })

    it("names a supersession entry that names another successor", async () => {
      const verdict = await checkProof(
        old,
        withSupersession({ superseded_by: old.umoId }),
        await umo.signingKeys()
      )
      expect(verdict.verified).toBe(false)
      expect(failed(verdict)).toEqual(
        expect.arrayContaining([
          "It names this memory and its successor",
          "The supersession entry's hash matches its fields"
        ])
      )
    })

    it("names a memory the server says is current while its proof says superseded", async () => {
      const current = new Memory({ ...old.raw, superseded_by: null })
      const verdict = await checkProof(current, oldProof, await umo.signingKeys())
      expect(verdict.verified).toBe(false)
      expect(failed(verdict)).toEqual(["It names this memory and its successor"])
    })
  })
})
