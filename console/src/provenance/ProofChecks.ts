/**
 * The browser's own verdict on a memory's provenance: each check of `verifyProof` (from
 * `@umo/client`, WebCrypto only) spelled out, so that when a proof fails the console can say which
 * part failed — the capture entry and, for a superseded memory, the signed entry naming its
 * successor. The keys are the ones pinned at sign-in, never the key the proof carries.
 * @module
 */
import {
  entryHash,
  type Jwk,
  type Memory,
  type Proof,
  type SigningKeySet,
  trustedKeys,
  verifyEntry,
  verifyProof
} from "@umo/client"
import { sha256Hex } from "../api/MemoryContent.js"

export interface Check {
  readonly label: string
  /** null: not checked, because an earlier check it depends on failed. */
  readonly ok: boolean | null
}

export interface ProofVerdict {
  readonly verified: boolean
  readonly checks: ReadonlyArray<Check>
}

/**
 * A superseded memory's checks, as `verifyProof` makes them: the proof carries a `supersede` entry
 * naming this memory and the successor the proof (and the memory) name, signed by a trusted key.
 * None for a current memory.
 */
const supersessionChecks = async (
  memory: Memory,
  proof: Proof,
  trusted: Map<string, Jwk>
): Promise<Array<Check>> => {
  if (proof.supersededBy === null && memory.supersededBy === null) return []
  const entry = proof.supersession
  const checks: Array<Check> = [
    {
      label: "The proof holds a signed supersession entry",
      ok: entry !== null && entry.kind === "supersede"
    }
  ]
  if (entry === null) return checks
  const keyTrusted = trusted.has(entry.key_id)
  checks.push(
    {
      label: "It names this memory and its successor",
      ok:
        entry.umo_id === memory.umoId &&
        entry.superseded_by === proof.supersededBy &&
        proof.supersededBy === memory.supersededBy
    },
    {
      label: "The supersession entry's hash matches its fields",
      ok: (await entryHash(entry)) === entry.entry_hash
    },
    {
      label: `The supersession's key (${entry.key_id.slice(0, 12)}…) is one pinned at sign-in`,
      ok: keyTrusted
    },
    {
      label: "The supersession's Ed25519 signature is valid",
      ok: keyTrusted ? await verifyEntry(entry, trusted) : null
    }
  )
  return checks
}

/** Checks `proof` for `memory` against the pinned keys, and `content` against its hash when known. */
export const checkProof = async (
  memory: Memory,
  proof: Proof,
  pinned: SigningKeySet,
  content?: string
): Promise<ProofVerdict> => {
  if (globalThis.crypto?.subtle === undefined)
    return {
      verified: false,
      checks: [{ label: "WebCrypto is available (it needs HTTPS or localhost)", ok: false }]
    }
  const entry = proof.entry
  const checks: Array<Check> = [
    { label: "The proof holds a signed capture entry", ok: entry !== null && entry.kind === "capture" }
  ]
  const trusted = await trustedKeys(pinned, proof.rotations)
  if (entry !== null) {
    const keyTrusted = trusted.has(entry.key_id)
    checks.push(
      {
        label: "The entry names this memory",
        ok: entry.umo_id === memory.umoId && proof.umoId === memory.umoId
      },
      {
        label: "Its content hash is this memory's",
        ok: entry.content_hash === memory.contentHash && proof.contentHash === memory.contentHash
      },
      {
        label: "Its semantic hash is this memory's",
        ok: entry.semantic_hash === memory.semanticHash && proof.semanticHash === memory.semanticHash
      },
      { label: "The entry's hash matches its fields", ok: (await entryHash(entry)) === entry.entry_hash },
      { label: `Its key (${entry.key_id.slice(0, 12)}…) is one pinned at sign-in`, ok: keyTrusted },
      {
        label: "The Ed25519 signature is valid",
        ok: keyTrusted ? await verifyEntry(entry, trusted) : null
      }
    )
  }
  checks.push(...(await supersessionChecks(memory, proof, trusted)))
  if (content !== undefined)
    checks.push({
      label: "The text shown hashes to the recorded content hash",
      ok: (await sha256Hex(content)) === memory.contentHash
    })
  const passed = checks.every((check) => check.ok === true)
  // The badge is the client's verdict; the list above only says where it failed.
  const verified = passed && (await verifyProof(proof, pinned, content))
  return { verified, checks }
}
