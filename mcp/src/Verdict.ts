import * as Client from "@umo/client"
import { contentHash } from "@umo/core"
import type { MemoryAccount, MemoryError, MemoryShape } from "@umo/memory"
import { Results } from "@umo/memory"
import { Effect, Schema } from "effect"

/** What `verify_memory` answers: the verdict in words and the checks behind it. */
export const Verdict = Schema.Struct({
  umo_id: Schema.String,
  verdict: Schema.Literals(["verified", "tampered"]),
  explanation: Schema.String,
  /** The stored memory hashes again to the hashes signed at capture, and its text to its content hash. */
  content_unchanged: Schema.Boolean,
  /** The capture entry's signature verifies with the service's public keys (followed across rotations). */
  signature_valid: Schema.Boolean,
  /** The account's chain links unbroken around the entry. */
  chain_intact: Schema.Boolean,
  first_published: Schema.String,
  content_hash: Schema.String,
  key_id: Schema.NullOr(Schema.String)
})
export type Verdict = typeof Verdict.Type

const encodeProof = Schema.encodeSync(Results.Proof)

/**
 * Checks a memory as an outside verifier would: the service's proof (it recomputes the hashes from
 * what is stored now), then the signed capture entry checked again here with WebCrypto against the
 * service's published keys, and the memory's text hashed here against the signed content hash.
 */
export const verifyMemory = (
  memory: MemoryShape,
  umoId: string
): Effect.Effect<Verdict, MemoryError, MemoryAccount> =>
  Effect.gen(function* () {
    const proof = yield* memory.proof(umoId)
    const record = yield* memory.get(umoId)
    const keys = yield* memory.signingKeys
    const signed = new Client.Proof(encodeProof(proof) as unknown as Record<string, unknown>)
    const signatureValid = yield* Effect.promise(() =>
      Client.verifyProof(signed, keys as Client.SigningKeySet)
    )
    const contentUnchanged =
      proof.valid && contentHash(record.content_text) === proof.audit_proof.content_hash
    const chainIntact = proof.hash_chain_valid && !proof.audit_proof.chain_tampered
    const failures = [
      ...(contentUnchanged ? [] : ["the stored memory no longer hashes to what was signed at capture"]),
      ...(signatureValid
        ? []
        : ["its capture entry's signature does not verify with the service's public keys"]),
      ...(chainIntact ? [] : ["the account's hash chain is broken around its entry"])
    ]
    const verified = failures.length === 0
    return {
      umo_id: proof.umo_id,
      verdict: verified ? "verified" : "tampered",
      explanation: verified
        ? `Verified: memory ${proof.umo_id} is unchanged since it was captured (${proof.first_published}). ` +
          "Its text hashes to the content hash signed into the account's chain, the signature verifies with " +
          `the service's key ${proof.chain?.key_id ?? ""}, and the chain around it is intact.`
        : `Tampered: memory ${proof.umo_id} failed verification: ${failures.join("; ")}.`,
      content_unchanged: contentUnchanged,
      signature_valid: signatureValid,
      chain_intact: chainIntact,
      first_published: proof.first_published,
      content_hash: proof.audit_proof.content_hash,
      key_id: proof.chain?.key_id ?? null
    } satisfies Verdict
  })
