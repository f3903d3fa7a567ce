import { generateKeyPairSync } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { verifyReceipt, verifySignature } from "@umo/core"
import { SigningKey } from "@umo/plugins"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "umo-key-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const load = (options: { dataDir: string; pem?: string }) => Effect.runPromise(SigningKey.load(options))

describe("SigningKey", () => {
  it("creates a key once in the data directory and loads the same key afterwards", async () => {
    const first = await load({ dataDir: dir })
    const again = await load({ dataDir: dir })
    expect(again.keyId).toBe(first.keyId)
    expect(readFileSync(join(dir, "signing-key.pem"), "utf8")).toContain("PRIVATE KEY")
    expect(first.publicJwk).toMatchObject({ kty: "OKP", crv: "Ed25519", kid: first.keyId, alg: "EdDSA" })
    expect(first.publicJwk).not.toHaveProperty("d")
  })

  it("takes UMO_SIGNING_KEY as PEM or as a private JWK", async () => {
    const { privateKey } = generateKeyPairSync("ed25519")
    const fromPem = await load({
      dataDir: "/nonexistent",
      pem: privateKey.export({ format: "pem", type: "pkcs8" }).toString()
    })
    const fromJwk = await load({
      dataDir: "/nonexistent",
      pem: JSON.stringify(privateKey.export({ format: "jwk" }))
    })
    expect(fromJwk.keyId).toBe(fromPem.keyId)
  })

  it("refuses a key that is not Ed25519, and text that is no key", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      format: "pem",
      type: "pkcs8"
    })
    await expect(load({ dataDir: "/nonexistent", pem: rsa.toString() })).rejects.toThrow(/Ed25519/)
    await expect(load({ dataDir: "/nonexistent", pem: "not a key" })).rejects.toThrow(/UMO_SIGNING_KEY/)
  })

  it("signs messages and receipts that verify offline with the public JWK only", async () => {
    const key = await load({ dataDir: dir })
    const signature = key.sign("hello")
    expect(verifySignature("hello", signature, key.publicJwk)).toBe(true)
    expect(verifySignature("hello!", signature, key.publicJwk)).toBe(false)
    const other = await load({
      dataDir: "/nonexistent",
      pem: generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()
    })
    expect(verifySignature("hello", signature, other.publicJwk)).toBe(false)
    const jws = await Effect.runPromise(key.signJws({ type: "something-else" }))
    await expect(verifyReceipt(jws, key.publicJwk)).rejects.toThrow(
      /not a UMO capture, deletion or erasure receipt/
    )
    await expect(verifyReceipt(jws, other.publicJwk)).rejects.toThrow()
  })
})
