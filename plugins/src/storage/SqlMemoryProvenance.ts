import {
  contentHash,
  Ledger,
  type MemoryProof,
  MemoryProvenance,
  makeMemoryProvenance,
  recordHash,
  semanticHash
} from "@umo/core"
import { Effect, Layer, Option } from "effect"
import { readClient } from "./ReadReplicas.js"
import { readSnapshot, storeError } from "./SqlFailure.js"
import { chunksOf, type MemoryRow, memoryColumns, toStored } from "./SqlMemoryRows.js"

/**
 * The MemoryProvenance port on an Effect SqlClient: a memory's three hashes recomputed from what
 * is stored now (content, extraction, metadata and vectors) and checked against the signed
 * capture entry of its account's chain (the record hash, after a re-embedding, against its
 * signed `reembed` entry). The memory, its vectors and its chain segment are read in
 * one snapshot, so a write landing meanwhile cannot make an intact memory look changed.
 */
export const make = Effect.gen(function* () {
  // Proofs only read: from a replica that has caught up, when there are some (see ReadReplicas).
  const sql = yield* readClient
  const ledger = yield* Ledger

  const proof = (accountId: string, umoId: string) =>
    readSnapshot(
      sql,
      Effect.gen(function* () {
        const [row] = yield* sql<MemoryRow>`
          SELECT ${memoryColumns(sql, accountId)} FROM memories WHERE account_id = ${accountId} AND umo_id = ${umoId}`
        if (row === undefined) return Option.none<MemoryProof>()
        const memory = toStored(row)
        const chunks = yield* chunksOf(sql, accountId, umoId)
        const check = Option.getOrNull(yield* ledger.check(accountId, umoId, "capture"))
        // A superseded memory's successor is what its signed supersession entry says, and a
        // current one has no such entry: a successor set or cleared behind the chain's back shows.
        const succession = Option.getOrNull(yield* ledger.check(accountId, umoId, "supersede"))
        const successionValid =
          memory.superseded_by === null
            ? succession === null && memory.superseded_at === null
            : succession?.entry_valid === true &&
              succession.entry.superseded_by === memory.superseded_by &&
              succession.entry.recorded_at === memory.superseded_at
        // After a re-embedding, the vectors and so the record hash are the ones its signed
        // `reembed` entry names (the latest: a store may move to another model more than once).
        const reembedding = Option.getOrNull(yield* ledger.check(accountId, umoId, "reembed"))
        const recomputed = {
          content_hash: contentHash(memory.content),
          semantic_hash: semanticHash(memory),
          record_hash: recordHash({ ...memory, chunks })
        }
        const entry = check?.entry ?? null
        const signed = (field: keyof typeof recomputed) =>
          field === "record_hash" && reembedding !== null ? reembedding.entry : entry
        const matches = (field: keyof typeof recomputed) =>
          recomputed[field] === memory[field] && signed(field)?.[field] === recomputed[field]
        const chainValid =
          (check?.chain_valid ?? false) &&
          (succession?.chain_valid ?? true) &&
          (reembedding?.chain_valid ?? true)
        return Option.some({
          umo_id: umoId,
          valid:
            (check?.entry_valid ?? false) &&
            (reembedding?.entry_valid ?? true) &&
            matches("content_hash") &&
            matches("semantic_hash") &&
            matches("record_hash") &&
            successionValid,
          hash_chain_valid: chainValid,
          chain_tampered: !chainValid,
          first_published: entry?.recorded_at ?? memory.created_at,
          source: memory.source,
          content_hash: memory.content_hash,
          semantic_hash: memory.semantic_hash,
          entry,
          superseded_by: memory.superseded_by,
          supersession: succession?.entry ?? null,
          signing_key: check?.signing_key ?? null,
          rotations: check?.rotations ?? []
        } satisfies MemoryProof)
      })
    ).pipe(Effect.mapError(storeError("could not prove the memory")))

  return makeMemoryProvenance({ proof })
})

/** The MemoryProvenance port on an Effect SqlClient; needs the Ledger that signed the entries. */
export const layer = Layer.effect(MemoryProvenance, make)
