import {
  defaultCategories,
  isUmoId,
  Ledger,
  MemoryProvenance,
  MemoryStore,
  type StoredMemory,
  storableText
} from "@umo/core"
import { Effect, Option } from "effect"
import { decodeRequest, memoryNotFound, storeFailure } from "./Errors.js"
import { selectionOf } from "./Filters.js"
import {
  CategoriesRequest,
  ChainRequest,
  EraseRequest,
  ForgetManyRequest,
  ListRequest,
  ScopesRequest
} from "./Requests.js"
import type {
  CategoryListResult,
  ChainPage,
  ErasureReceipt,
  ListPage,
  MemoryHistory,
  MemoryRecord,
  Proof,
  ScopeList,
  SigningKeys
} from "./Results.js"

/** A memory as `get` returns it: the UMO without vectors, with its content and extensions. */
export const memoryRecord = (m: StoredMemory): MemoryRecord => ({
  umo_id: m.umo_id,
  summary: m.summary,
  entities: m.entities,
  svo_triples: m.svo_triples,
  topics: m.topics,
  tone: m.tone,
  language: m.language,
  quality_score: m.quality_score,
  source: m.source,
  user_id: m.user_id,
  agent_id: m.agent_id,
  session_id: m.session_id,
  metadata: m.metadata,
  timestamp: m.timestamp,
  created_at: m.created_at,
  content_hash: m.content_hash,
  semantic_hash: m.semantic_hash,
  pipeline: m.pipeline,
  extensions: m.extensions,
  content_text: m.content,
  supersedes: m.supersedes,
  superseded_by: m.superseded_by,
  superseded_at: m.superseded_at,
  imported_from: m.imported_from,
  expires_at: m.expires_at,
  immutable: m.immutable,
  categories: m.categories
})

/**
 * Ids are UUIDs; anything else is as unknown as a missing one (MemoryNotFound), never a database
 * error. Upper-case hex is the same id.
 */
export const withId = <A, E, R>(id: string, f: (umoId: string) => Effect.Effect<Option.Option<A>, E, R>) =>
  isUmoId(id.toLowerCase())
    ? Effect.flatMap(
        f(id.toLowerCase()),
        Option.match({ onNone: () => Effect.fail(memoryNotFound(id)), onSome: Effect.succeed })
      )
    : Effect.fail(memoryNotFound(id))

const decodeList = decodeRequest(ListRequest, "query string")
const decodeScopes = decodeRequest(ScopesRequest, "query string")
const decodeChain = decodeRequest(ChainRequest, "query string")
const decodeErase = decodeRequest(EraseRequest, "query string")
const decodeCategories = decodeRequest(CategoriesRequest, "request body")
const decodeForgetMany = decodeRequest(ForgetManyRequest, "request body")

/** The calls on stored memories: read, list, prove, forget; the account's chain; the signing keys. */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const provenance = yield* MemoryProvenance
  const ledger = yield* Ledger

  const stored = (accountId: string, id: string) =>
    withId(id, (umoId) => store.get(accountId, umoId).pipe(Effect.catch(storeFailure)))

  const get = (accountId: string, id: string) => Effect.map(stored(accountId, id), memoryRecord)

  const scopes = (accountId: string, input: unknown = {}) =>
    Effect.gen(function* () {
      const request = yield* decodeScopes(input)
      const limit = request.limit ?? 20
      const offset = request.offset ?? 0
      const page = yield* store
        .scopes(accountId, { kind: request.kind, prefix: request.prefix, limit, offset })
        .pipe(Effect.catch(storeFailure))
      return {
        scopes: page.items,
        total_count: page.total,
        has_more: offset + page.items.length < page.total
      } satisfies ScopeList
    })

  const list = (accountId: string, input: unknown = {}) =>
    Effect.gen(function* () {
      const request = yield* decodeList(input)
      const limit = request.limit ?? 20
      const offset = request.offset ?? 0
      const page = yield* store
        .list(accountId, { limit, offset, ...selectionOf(request) })
        .pipe(Effect.catch(storeFailure))
      return {
        items: page.items.map((m) => ({
          umo_id: m.umo_id,
          summary: m.summary,
          quality_score: m.quality_score,
          created_at: m.created_at,
          timestamp: m.timestamp,
          source: m.source,
          user_id: m.user_id,
          agent_id: m.agent_id,
          session_id: m.session_id,
          metadata: m.metadata,
          categories: m.categories,
          superseded_by: m.superseded_by,
          expires_at: m.expires_at,
          immutable: m.immutable
        })),
        total_count: page.total,
        has_more: offset + page.items.length < page.total
      } satisfies ListPage
    })

  const history = (accountId: string, id: string) =>
    withId(id, (umoId) =>
      store
        .history(accountId, umoId)
        .pipe(
          Effect.map(
            Option.map((line): MemoryHistory => ({ umo_id: umoId, versions: line.map(memoryRecord) }))
          ),
          Effect.catch(storeFailure)
        )
    )

  /** Every memory of a scope (narrowed by the other fields), superseded ones too, with one receipt. */
  const erase = (accountId: string, input: unknown) =>
    Effect.gen(function* () {
      const request = yield* decodeErase(input)
      const { filter } = selectionOf(request)
      const erased = yield* store.erase(accountId, filter).pipe(Effect.catch(storeFailure))
      return erased satisfies ErasureReceipt
    })

  const chain = (accountId: string, input: unknown = {}) =>
    Effect.gen(function* () {
      const request = yield* decodeChain(input)
      const page = yield* ledger
        .entries(accountId, { before: request.before, limit: request.limit ?? 50 })
        .pipe(Effect.catch(storeFailure))
      return {
        entries: page.entries,
        has_more: page.has_more,
        next_before: page.has_more ? (page.entries.at(-1)?.seq ?? null) : null
      } satisfies ChainPage
    })

  const proof = (accountId: string, id: string) =>
    Effect.map(
      withId(id, (umoId) => provenance.proof(accountId, umoId).pipe(Effect.catch(storeFailure))),
      (p): Proof => ({
        valid: p.valid,
        hash_chain_valid: p.hash_chain_valid,
        first_published: p.first_published,
        audit_proof: {
          content_hash: p.content_hash,
          semantic_hash: p.semantic_hash,
          verification_mode: "cryptographic",
          chain_tampered: p.chain_tampered
        },
        umo_id: p.umo_id,
        source: p.source,
        chain: p.entry,
        superseded_by: p.superseded_by,
        supersession: p.supersession,
        public_key: (p.signing_key ?? ledger.publicKeyJwk) as Record<string, unknown>,
        rotations: p.rotations
      })
    )

  const forget = (accountId: string, id: string) =>
    withId(id, (umoId) => store.remove(accountId, umoId).pipe(Effect.catch(storeFailure)))

  const signingKeys = ledger.signingKeys.pipe(
    Effect.map(
      ({ keys, rotations }): SigningKeys => ({
        keys: keys as ReadonlyArray<Record<string, unknown>>,
        rotations: rotations ?? []
      })
    ),
    Effect.catch(storeFailure)
  )

  const forgetMany = (accountId: string, input: unknown) =>
    Effect.gen(function* () {
      const { umo_ids } = yield* decodeForgetMany(input)
      const malformed = umo_ids.find((id) => !isUmoId(id.toLowerCase()))
      if (malformed !== undefined) return yield* memoryNotFound(malformed)
      return yield* store
        .removeMany(
          accountId,
          umo_ids.map((id) => id.toLowerCase())
        )
        .pipe(Effect.catch(storeFailure))
    })

  const categories = (accountId: string) =>
    Effect.map(
      store.categoryList(accountId).pipe(Effect.catch(storeFailure)),
      Option.match({
        onNone: (): CategoryListResult => ({ categories: defaultCategories, origin: "default" }),
        onSome: (list): CategoryListResult => ({ categories: list, origin: "account" })
      })
    )

  const setCategories = (accountId: string, input: unknown) =>
    Effect.gen(function* () {
      const request = yield* decodeCategories(input)
      // Made storable once checked (U+0000 dropped, lone surrogates replaced), as every text is.
      const list =
        request.categories?.map((c) => ({ name: c.name, description: storableText(c.description) })) ?? null
      yield* store.setCategoryList(accountId, list).pipe(Effect.catch(storeFailure))
      return yield* categories(accountId)
    })

  return {
    stored,
    get,
    list,
    scopes,
    history,
    erase,
    chain,
    proof,
    forget,
    signingKeys,
    categories,
    setCategories,
    forgetMany
  }
})
