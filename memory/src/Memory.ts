/**
 * The memory service: everything UMO does with an account's memories, in-process. The reference
 * server is its HTTP face (one call of this service per request), `openMemory` its Promise face.
 *
 * **Contract.**
 *
 * - *Scope.* Every call but `models` and `signingKeys` acts for the account in `MemoryAccount`
 *   (provide it per request or once): no call reads, changes or deletes another account's
 *   memories, and another account's id is as unknown as a missing one (`MemoryNotFound`).
 * - *Input.* Calls take their requests as callers send them (`Requests.ts`) and check them against
 *   the same schemas the HTTP API documents: a request that breaks a rule fails with
 *   `InvalidRequest` naming the field and the rule, before anything is read or written. Text is
 *   made storable (U+0000 dropped, lone surrogates replaced) once it has passed.
 * - *Output.* Results are in the API's wire shape (`Results.ts`), so a result in-process and over
 *   HTTP are the same object.
 * - *Captures* (`capture`, `batch`, `upload`) run the configured plugins, then store each memory
 *   with its signed chain entry in one transaction: a capture is whole or absent, never half
 *   written. A batch's valid items are stored together or (the database failing) not at all; an
 *   invalid item is reported in its result and does not stop the others. With an
 *   `idempotencyKey`, a repeat of the same request returns the first answer and stores nothing;
 *   the same key with another request fails with `InvalidRequest`. Keys last 24 hours.
 * - *Failures.* The database out of reach (or this process's signing key retired by a rotation)
 *   is `Unavailable`: nothing was done, retry. A cloud model's provider failing is
 *   `ProviderFailed`. Anything else is a defect (a bug), never a typed error.
 * - *Trust.* `proof` recomputes the memory's hashes from what is stored now and checks them
 *   against its signed chain entry; the evidence it returns verifies offline (`verifyProof`).
 * @module
 */
import type { Account } from "@umo/core"
import type { Stream } from "effect"
import { Context, type Effect } from "effect"
import type {
  InvalidRequest,
  MemoryNotFound,
  ProviderFailed,
  Unavailable,
  UnsupportedFile
} from "./Errors.js"
import type { Expired } from "./expiry/Sweeper.js"
import type {
  AskRequest,
  BatchRequest,
  CaptureRequest,
  CategoriesRequest,
  ChainRequest,
  EraseRequest,
  ExplainRequest,
  ForgetManyRequest,
  ListRequest,
  MatchRequest,
  ScopesRequest,
  SearchRequest,
  UpdateManyRequest,
  UpdateRequest,
  WebhookRequest
} from "./Requests.js"
import type {
  AccountInfo,
  AskAnswer,
  BatchResult,
  Captured,
  CategoryListResult,
  ChainPage,
  CreatedWebhook,
  DeletionReceipt,
  ErasureReceipt,
  Explanation,
  ListPage,
  MatchResult,
  MemoryHistory,
  MemoryRecord,
  ModelList,
  Proof,
  ScopeList,
  SearchResults,
  SigningKeys,
  UpdateManyResult,
  Uploaded,
  WebhookInfo,
  WebhookList
} from "./Results.js"
import type { ExportLine, ExportRequest, ImportRequest, ImportSummary } from "./Transfers.js"

/** The account the calls act for. */
export class MemoryAccount extends Context.Service<MemoryAccount, Account>()("@umo/memory/MemoryAccount") {}

/** Makes a capture safe to repeat (see the contract). */
export interface CaptureOptions {
  /** 1 to 255 visible ASCII characters, e.g. a UUID. */
  readonly idempotencyKey?: string | undefined
}

/** A file to capture: its name, declared media type, bytes, and the memory's source. */
export interface FileToCapture {
  readonly filename: string
  readonly mediaType?: string | undefined
  readonly bytes: Uint8Array
  readonly source?: string | undefined
  /** The capture request's other fields, checked as a capture checks them. */
  readonly user_id?: string | undefined
  readonly agent_id?: string | undefined
  readonly session_id?: string | undefined
  readonly metadata?: unknown
  readonly supersedes?: ReadonlyArray<string> | undefined
  readonly infer_updates?: boolean | undefined
  readonly dedupe?: boolean | undefined
  readonly expires_at?: string | undefined
  readonly ttl?: number | undefined
  readonly immutable?: boolean | undefined
}

/** What a request schema accepts: its encoded form (the JSON a caller sends). */
type In<S> = S extends { readonly Encoded: infer E } ? E : never

/** Calls that act for the account in `MemoryAccount`. */
type ForAccount<A, E> = Effect.Effect<A, E, MemoryAccount>

export interface MemoryShape {
  /**
   * Captures one text (`POST /v1/process`), superseding the memories it names (an unknown one is
   * `MemoryNotFound`, and nothing is stored) and those its facts outdate.
   */
  readonly capture: (
    request: In<typeof CaptureRequest>,
    options?: CaptureOptions
  ) => ForAccount<Captured, InvalidRequest | MemoryNotFound | Unavailable>
  /** Captures 1–100 texts as one unit, one result per item in order (`POST /v1/batch`). */
  readonly batch: (
    request: In<typeof BatchRequest>,
    options?: CaptureOptions
  ) => ForAccount<BatchResult, InvalidRequest | MemoryNotFound | Unavailable>
  /** Captures the text of a file, 20 MB at most; the bytes are not kept (`POST /v1/upload`). */
  readonly upload: (
    file: FileToCapture,
    options?: CaptureOptions
  ) => ForAccount<Uploaded, InvalidRequest | MemoryNotFound | UnsupportedFile | Unavailable>
  /**
   * Changes 1–100 memories as one unit (`POST /v1/memories/update`): each new version supersedes
   * its memory, all stored in one transaction with their signed entries, or — one change refused,
   * named `updates.<i>` — none.
   */
  readonly updateMany: (
    request: In<typeof UpdateManyRequest>,
    options?: CaptureOptions
  ) => ForAccount<UpdateManyResult, InvalidRequest | MemoryNotFound | Unavailable>
  /**
   * Changes a memory's text or metadata by capturing a new version that supersedes it, in its
   * scope (`PATCH /v1/memories/{id}`): the history and the chain keep both. A superseded memory is
   * refused (change the current one).
   */
  readonly update: (
    id: string,
    request: In<typeof UpdateRequest>,
    options?: CaptureOptions
  ) => ForAccount<Captured, InvalidRequest | MemoryNotFound | Unavailable>
  /** The account's users, agents and sessions, most recently active first (`GET /v1/scopes`). */
  readonly scopes: (request?: In<typeof ScopesRequest>) => ForAccount<ScopeList, InvalidRequest | Unavailable>
  /** A page of memories, newest first (`GET /v1/memories`). */
  readonly list: (request?: In<typeof ListRequest>) => ForAccount<ListPage, InvalidRequest | Unavailable>
  /** One memory with everything extracted from it, plugins' `extensions` too (`GET /v1/memories/{id}`). */
  readonly get: (id: string) => ForAccount<MemoryRecord, MemoryNotFound | Unavailable>
  /** A memory's line of versions, oldest first (`GET /v1/memories/{id}/history`). */
  readonly history: (id: string) => ForAccount<MemoryHistory, MemoryNotFound | Unavailable>
  /** The memories that best match a query, by the whole ranking (`POST /v1/memories/query`). */
  readonly search: (
    request: In<typeof SearchRequest>
  ) => ForAccount<SearchResults, InvalidRequest | Unavailable>
  /** An answer from the best-matching memories, with `[n]` citations (`POST /v1/ask`). */
  readonly answer: (
    request: In<typeof AskRequest>
  ) => ForAccount<AskAnswer, InvalidRequest | ProviderFailed | Unavailable>
  /** The answer models `answer` takes (`GET /v1/ask/models`). */
  readonly models: Effect.Effect<ModelList>
  /** How alike two memories are (`POST /v1/match`). */
  readonly compare: (
    request: In<typeof MatchRequest>
  ) => ForAccount<MatchResult, MemoryNotFound | InvalidRequest | Unavailable>
  /** What was extracted from a memory and why, and why it matches `query` (`GET /v1/memories/{id}/explain`). */
  readonly explain: (
    id: string,
    request?: In<typeof ExplainRequest>
  ) => ForAccount<Explanation, MemoryNotFound | InvalidRequest | Unavailable>
  /** The proof that a memory is unchanged since capture (`GET /v1/memories/{id}/proof`). */
  readonly proof: (id: string) => ForAccount<Proof, MemoryNotFound | Unavailable>
  /** Deletes a memory's content and vectors and returns the signed receipt (`DELETE /v1/memories/{id}`). */
  readonly forget: (id: string) => ForAccount<DeletionReceipt, MemoryNotFound | Unavailable>
  /**
   * Deletes 1–1,000 memories as one unit (`POST /v1/memories/delete`), with one signed erasure
   * receipt naming them; one that is not the account's deletes none (`MemoryNotFound`).
   */
  readonly forgetMany: (
    request: In<typeof ForgetManyRequest>
  ) => ForAccount<ErasureReceipt, InvalidRequest | MemoryNotFound | Unavailable>
  /**
   * Deletes every memory of a scope — an end user's, an agent's or a conversation's, narrowed by
   * the other selection fields — superseded ones too, with one signed receipt naming them
   * (`DELETE /v1/memories?user_id=…`). A request naming no scope is refused.
   */
  readonly erase: (
    request: In<typeof EraseRequest>
  ) => ForAccount<ErasureReceipt, InvalidRequest | Unavailable>
  /** The categories new memories are filed under: the account's own, or the default list (`GET /v1/account/categories`). */
  readonly categories: ForAccount<CategoryListResult, Unavailable>
  /**
   * Sets the account's categories (null: back to the default list) for the memories captured from
   * now on; those captured keep theirs (`PUT /v1/account/categories`).
   */
  readonly setCategories: (
    request: In<typeof CategoriesRequest>
  ) => ForAccount<CategoryListResult, InvalidRequest | Unavailable>
  /**
   * Adds a webhook (`POST /v1/webhooks`): the events it hears are posted to its URL, signed with
   * the secret this answer shows once, in chain order, at least once (see docs/webhooks.md).
   */
  readonly createWebhook: (
    request: In<typeof WebhookRequest>
  ) => ForAccount<CreatedWebhook, InvalidRequest | Unavailable>
  /** The account's webhooks and how their deliveries stand (`GET /v1/webhooks`). */
  readonly webhooks: ForAccount<WebhookList, Unavailable>
  /** Deletes a webhook: nothing more is posted to it (`DELETE /v1/webhooks/{id}`). */
  readonly deleteWebhook: (id: string) => ForAccount<WebhookInfo, MemoryNotFound | Unavailable>
  /** The account and its plan (`GET /v1/account`, less the key). */
  readonly account: ForAccount<AccountInfo, never>
  /** A page of the account's hash chain, newest first, to verify offline (`GET /v1/account/chain`). */
  readonly chain: (request?: In<typeof ChainRequest>) => ForAccount<ChainPage, InvalidRequest | Unavailable>
  /** The public signing keys and the key records linking them (`GET /.well-known/jwks.json`). */
  readonly signingKeys: Effect.Effect<SigningKeys, Unavailable>
  /**
   * The account's memories as an export's lines (`GET /v1/export`, see `Transfers`): the header,
   * each selected memory in capture order with its proof's entries, and the count. Lines are read
   * as the stream is consumed; a bad request fails before the first.
   */
  readonly exportMemories: (
    request?: In<typeof ExportRequest>
  ) => ForAccount<Stream.Stream<ExportLine, Unavailable>, InvalidRequest | Unavailable>
  /**
   * Imports an export of UMO or of Mem0 (`POST /v1/import`), read from `input` as it arrives; an
   * original already imported is not stored again. `onProgress` hears the summary after each batch.
   */
  readonly importMemories: (
    input: Stream.Stream<Uint8Array | string, unknown>,
    request?: In<typeof ImportRequest>,
    onProgress?: (summary: ImportSummary) => void
  ) => ForAccount<ImportSummary, InvalidRequest | Unavailable>
  /**
   * Erases every account's expired memories now, with a signed erasure receipt per account (what
   * the sweeper does every `UMO_EXPIRY_SWEEP_SECONDS`, 60 by default). Reads leave an expired
   * memory out from the instant it expires, swept or not.
   */
  readonly sweepExpired: Effect.Effect<ReadonlyArray<Expired>, Unavailable>
}

export class Memory extends Context.Service<Memory, MemoryShape>()("@umo/memory/Memory") {}
