import { readFile } from "node:fs/promises"
import { isUmoId, Ledger, MemoryStore, type StoredMemory } from "@umo/core"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentAccount } from "../api/Authentication.js"
import { memoryNotFound, Unprocessable } from "../api/Errors.js"
import { type CaptureInput, type IdempotencyHeaders, idempotencyKeyOf } from "../api/Fields.js"
import type { SearchRequest } from "../api/Schemas.js"
import { UmoApi } from "../api/UmoApi.js"
import { Memories, storeFailure } from "../services/Memories.js"
import { Recall } from "../services/Recall.js"
import { envelope } from "./RequestContext.js"

/** The flat memory body of `GET /v1/memories/{id}`: the UMO without content and vectors. */
export const memoryBody = (m: StoredMemory) => ({
  umo_id: m.umo_id,
  summary: m.summary,
  entities: m.entities,
  svo_triples: m.svo_triples,
  topics: m.topics,
  tone: m.tone,
  quality_score: m.quality_score,
  created_at: m.created_at,
  timestamp: m.timestamp,
  source: m.source,
  language: m.language,
  content_hash: m.content_hash,
  semantic_hash: m.semantic_hash,
  pipeline: m.pipeline
})

/** Ids are UUIDs; anything else is as unknown as a missing one (404), never a database error. */
export const withId = <A, E, R>(id: string, f: (umoId: string) => Effect.Effect<Option.Option<A>, E, R>) =>
  isUmoId(id.toLowerCase())
    ? Effect.flatMap(
        f(id.toLowerCase()),
        Option.match({ onNone: () => Effect.fail(memoryNotFound(id)), onSome: Effect.succeed })
      )
    : Effect.fail(memoryNotFound(id))

export const MemoriesHandlers = HttpApiBuilder.group(UmoApi, "memories", (handlers) =>
  Effect.gen(function* () {
    const memories = yield* Memories
    const store = yield* MemoryStore
    const ledger = yield* Ledger
    const recall = yield* Recall

    const capture = ({ payload, headers }: { payload: CaptureInput; headers: IdempotencyHeaders }) =>
      Effect.gen(function* () {
        const { account } = yield* CurrentAccount
        return yield* envelope(
          yield* memories.capture(account.account_id, payload, idempotencyKeyOf(headers))
        )
      })

    const search = ({ payload }: { payload: typeof SearchRequest.Type }) =>
      Effect.gen(function* () {
        const { account } = yield* CurrentAccount
        const limit = payload.limit ?? 5
        // Every memory the ranking scored counts as a match; the first `limit` are returned.
        const { hits, total } = yield* recall.search(account.account_id, payload.query, {
          limit,
          source: payload.source
        })
        return yield* envelope({
          results: hits.map((h) => ({
            umo_id: h.memory.umo_id,
            content_text: h.memory.content,
            score: h.score
          })),
          total_count: total,
          has_more: total > hits.length
        })
      })

    return handlers
      .handle("process", capture)
      .handle("create", capture)
      .handle("batch", ({ payload, headers }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          return yield* envelope(
            yield* memories.captureMany(account.account_id, payload.items, idempotencyKeyOf(headers))
          )
        })
      )
      .handle("upload", ({ payload, headers }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const file = payload.file
          // The multipart parser has put the part in a temporary file; it is read, parsed and dropped.
          const bytes = yield* Effect.tryPromise({
            try: () => readFile(file.path),
            catch: () => new Unprocessable({ detail: "the uploaded file could not be read" })
          })
          const uploaded = yield* memories.captureFile(
            account.account_id,
            { filename: file.name, mediaType: file.contentType, bytes, source: payload.source },
            idempotencyKeyOf(headers)
          )
          return yield* envelope(uploaded)
        })
      )
      .handle("query", search)
      .handle("search", search)
      .handle("list", ({ query }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const limit = query.limit ?? 20
          const offset = query.offset ?? 0
          const page = yield* store
            .list(account.account_id, { limit, offset, source: query.source })
            .pipe(Effect.catch(storeFailure))
          return yield* envelope({
            items: page.items.map((m) => ({
              umo_id: m.umo_id,
              summary: m.summary,
              quality_score: m.quality_score,
              created_at: m.created_at,
              source: m.source
            })),
            total_count: page.total,
            has_more: offset + page.items.length < page.total
          })
        })
      )
      .handle("get", ({ params }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const memory = yield* withId(params.id, (umoId) => memories.get(account.account_id, umoId))
          return memoryBody(memory)
        })
      )
      .handle("proof", ({ params }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          const proof = yield* withId(params.id, (umoId) =>
            store.proof(account.account_id, umoId).pipe(Effect.catch(storeFailure))
          )
          return yield* envelope({
            valid: proof.valid,
            hash_chain_valid: proof.hash_chain_valid,
            first_published: proof.first_published,
            audit_proof: {
              content_hash: proof.content_hash,
              semantic_hash: proof.semantic_hash,
              verification_mode: "cryptographic" as const,
              chain_tampered: proof.chain_tampered
            },
            umo_id: params.id.toLowerCase(),
            source: proof.source,
            chain: proof.entry,
            public_key: (proof.signing_key ?? ledger.publicKeyJwk) as Record<string, unknown>,
            rotations: proof.rotations
          })
        })
      )
      .handle("forget", ({ params }) =>
        Effect.gen(function* () {
          const { account } = yield* CurrentAccount
          return yield* withId(params.id, (umoId) =>
            store.remove(account.account_id, umoId).pipe(Effect.catch(storeFailure))
          )
        })
      )
  })
)
