import type { Raw } from "./fields.js"
import {
  BatchItem,
  Captured,
  ChainPage,
  DeletionReceipt,
  Explanation,
  Match,
  Memory,
  MemoryPage,
  type MemorySummary,
  Proof,
  ScopePage,
  Uploaded
} from "./models.js"
import { Account, Answer, type Category, CategoryList, Comparison, Models, Webhook } from "./results.js"
import type { Jwk, KeyRotation, SigningKeySet } from "./signed.js"
import { type ExportLine, exportLines, ImportSummary } from "./transfers.js"
import { type Call, lines, send, type TransportOptions } from "./transport.js"
import {
  type AnswerOptions,
  type AskOptions,
  answerRequest,
  askRequest,
  type BatchInput,
  batchRequest,
  type CaptureOptions,
  type ChainOptions,
  type CompareOptions,
  captureRequest,
  chainRequest,
  compareRequest,
  type EraseOptions,
  type ExplainOptions,
  type ExportOptions,
  explainRequest,
  exportRequest,
  type Idempotent,
  type ImportInput,
  type ImportOptions,
  importRequest,
  iteratePages,
  type ListOptions,
  listRequest,
  type ScopesOptions,
  scopesRequest,
  selectionRequest,
  type UMOMemory,
  type UpdateOptions,
  type UploadOptions,
  updateManyRequest,
  updateRequest,
  uploadRequest
} from "./UMOMemory.js"
import { ErasureReceipt, MemoryHistory } from "./versions.js"

/** What `health` answers. */
export interface Health {
  readonly status: string
  readonly index: {
    readonly serving: number
    readonly loading: number
    readonly memories: number
    readonly heldMb: number
    readonly budgetMb: number
    readonly evictions: number
    readonly shard: string | null
  }
  /**
   * A re-embedding this server runs (started with `UMO_REEMBED=on` on a store of another model) or
   * followed (another server on its database moved the store to another model), else null.
   */
  readonly reembedding: {
    readonly from: string
    readonly to: string
    readonly state: "embedding" | "switching" | "switched" | "failed"
    readonly staged: number
    readonly total: number
    readonly detail: string | null
  } | null
}

export interface UMOClientOptions {
  /** API key; defaults to the `UMO_API_KEY` environment variable. */
  readonly apiKey?: string
  /** Service address; defaults to `UMO_BASE_URL`, then http://127.0.0.1:8787. */
  readonly baseUrl?: string
  /** Time allowed for each attempt of a call, in milliseconds (default 60,000). */
  readonly timeoutMs?: number
  /** How often a 429 or 503 is retried before its error is raised (default 2). */
  readonly maxRetries?: number
  /** Longest wait before a retry, in milliseconds (default 30,000); a longer `Retry-After` raises. */
  readonly maxRetryDelayMs?: number
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]

const memoryPath = (id: string, suffix = "") => `/v1/memories/${encodeURIComponent(id)}${suffix}`

/** A request's fields as a query string carries them: objects as JSON, the rest as text. */
const queryOf = (fields: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, typeof value === "object" ? JSON.stringify(value) : String(value)])
  )

/**
 * A client of the UMO API. The nine verbs of the spec — `capture`, `ask` (search), `get`, `list`,
 * `verify`, `explain`, `forget`, `upload`, `batch` — and the other calls: `answer` (`/v1/ask`),
 * `compare` (`/v1/match`), `account`, `chain` (`/v1/account/chain`), `models`, `health`, `signingKeys`,
 * `exportMemories` (`/v1/export`) and `importMemories` (`/v1/import`).
 * The verbs are `UMOMemory`'s: `openMemory` (`@umo/memory`) answers them in-process.
 */
export class UMOClient implements UMOMemory {
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly #transport: TransportOptions

  constructor(options: UMOClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("UMO_BASE_URL") ?? "http://127.0.0.1:8787").replace(/\/+$/, "")
    this.apiKey = options.apiKey ?? env("UMO_API_KEY")
    this.timeoutMs = options.timeoutMs ?? 60_000
    this.maxRetries = options.maxRetries ?? 2
    this.#transport = {
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000
    }
  }

  #send(call: Call): Promise<Raw> {
    return send(this.#transport, call)
  }

  /**
   * Captures one text as a memory (`POST /v1/process`). Idempotent across the client's retries: one
   * `Idempotency-Key` (yours, or a new UUID) goes with every attempt, so a retry never stores twice.
   */
  async capture(content: string, options: CaptureOptions & Idempotent = {}): Promise<Captured> {
    return new Captured(
      await this.#send({
        method: "POST",
        path: "/v1/process",
        json: captureRequest(content, options),
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID()
      })
    )
  }

  /** Searches the memories, best first (`POST /v1/memories/query`); no LLM is involved. */
  async ask(query: string, options: AskOptions = {}): Promise<Array<Match>> {
    const data = await this.#send({
      method: "POST",
      path: "/v1/memories/query",
      json: askRequest(query, options)
    })
    return (Array.isArray(data.results) ? data.results : []).map((r: Raw) => new Match(r))
  }

  /**
   * Changes a memory's text or metadata (`PATCH /v1/memories/{id}`): a new version supersedes it in
   * its scope, and the history and the chain keep both. Idempotent across the client's retries.
   */
  async update(id: string, change: UpdateOptions): Promise<Captured> {
    return new Captured(
      await this.#send({
        method: "PATCH",
        path: memoryPath(id),
        json: updateRequest(change),
        idempotencyKey: change.idempotencyKey ?? crypto.randomUUID()
      })
    )
  }

  /** The account's end users, agents and conversations, most recently active first (`GET /v1/scopes`). */
  async scopes(options: ScopesOptions = {}): Promise<ScopePage> {
    return new ScopePage(
      await this.#send({ method: "GET", path: "/v1/scopes", query: queryOf(scopesRequest(options)) })
    )
  }

  /** One memory with everything extracted from it (`GET /v1/memories/{id}`). */
  async get(id: string): Promise<Memory> {
    return new Memory(await this.#send({ method: "GET", path: memoryPath(id) }))
  }

  /** A page of memories, newest first (`GET /v1/memories`), narrowed by scope, metadata, time or `filters`. */
  async list(options: ListOptions = {}): Promise<MemoryPage> {
    return new MemoryPage(
      await this.#send({ method: "GET", path: "/v1/memories", query: queryOf(listRequest(options)) })
    )
  }

  /** A memory's line of versions, oldest first (`GET /v1/memories/{id}/history`). */
  async history(id: string): Promise<MemoryHistory> {
    return new MemoryHistory(await this.#send({ method: "GET", path: memoryPath(id, "/history") }))
  }

  /**
   * Deletes every memory of an end user, agent or conversation — superseded ones too — and returns
   * one signed receipt naming them (`DELETE /v1/memories?user_id=…`). At least one scope is required.
   */
  async forgetAll(scope: EraseOptions): Promise<ErasureReceipt> {
    return new ErasureReceipt(
      await this.#send({ method: "DELETE", path: "/v1/memories", query: queryOf(selectionRequest(scope)) })
    )
  }

  /** Every memory (optionally of one source), fetched page by page as the loop asks for them. */
  iterate(options: Omit<ListOptions, "offset"> = {}): AsyncGenerator<MemorySummary> {
    return iteratePages((page) => this.list(page), options)
  }

  /** The service's proof that a memory is unchanged since capture (`GET /v1/memories/{id}/proof`). */
  async verify(id: string): Promise<Proof> {
    return new Proof(await this.#send({ method: "GET", path: memoryPath(id, "/proof") }))
  }

  /** What was captured and extracted, and why (`GET /v1/memories/{id}/explain`). */
  async explain(id: string, options: ExplainOptions = {}): Promise<Explanation> {
    return new Explanation(
      await this.#send({ method: "GET", path: memoryPath(id, "/explain"), query: explainRequest(options) })
    )
  }

  /** Deletes a memory and returns the signed receipt (`DELETE /v1/memories/{id}`). */
  async forget(id: string): Promise<DeletionReceipt> {
    return new DeletionReceipt(await this.#send({ method: "DELETE", path: memoryPath(id) }))
  }

  /** Deletes 1–1,000 memories by id as one unit, with one signed receipt (`POST /v1/memories/delete`). */
  async forgetMany(ids: ReadonlyArray<string>): Promise<ErasureReceipt> {
    return new ErasureReceipt(
      await this.#send({ method: "POST", path: "/v1/memories/delete", json: { umo_ids: ids } })
    )
  }

  /** Changes 1–100 memories as one unit: every new version, or none (`POST /v1/memories/update`). */
  async updateMany(
    changes: ReadonlyArray<{ readonly id: string } & UpdateOptions>,
    options: Idempotent = {}
  ): Promise<Array<BatchItem>> {
    const data = await this.#send({
      method: "POST",
      path: "/v1/memories/update",
      json: updateManyRequest(changes),
      idempotencyKey: options.idempotencyKey ?? crypto.randomUUID()
    })
    return (data.results as ReadonlyArray<Raw>).map((r) => new BatchItem(r))
  }

  /** Captures a file: text, Markdown, HTML, JSON, CSV, PDF, image or audio metadata (`POST /v1/upload`). */
  async upload(file: Blob, filename: string, options: UploadOptions = {}): Promise<Uploaded> {
    const form = new FormData()
    form.append("file", file, filename)
    const fields = queryOf(uploadRequest(options))
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    return new Uploaded(
      await this.#send({
        method: "POST",
        path: "/v1/upload",
        form,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID()
      })
    )
  }

  /** Captures up to 100 texts in one call (`POST /v1/batch`); one result per item, in order. */
  async batch(items: ReadonlyArray<BatchInput>, options: Idempotent = {}): Promise<Array<BatchItem>> {
    const data = await this.#send({
      method: "POST",
      path: "/v1/batch",
      json: batchRequest(items),
      idempotencyKey: options.idempotencyKey ?? crypto.randomUUID()
    })
    return (Array.isArray(data.results) ? data.results : []).map((r: Raw) => new BatchItem(r))
  }

  /** An answer written from the memories, with `[n]` citations (`POST /v1/ask`). */
  async answer(question: string, options: AnswerOptions = {}): Promise<Answer> {
    return new Answer(
      await this.#send({ method: "POST", path: "/v1/ask", json: answerRequest(question, options) })
    )
  }

  /** How alike two memories are (`POST /v1/match`). */
  async compare(sourceId: string, candidateId: string, options: CompareOptions = {}): Promise<Comparison> {
    return new Comparison(
      await this.#send({
        method: "POST",
        path: "/v1/match",
        json: compareRequest(sourceId, candidateId, options)
      })
    )
  }

  /** The account and key this client calls with (`GET /v1/account`). */
  async account(): Promise<Account> {
    return new Account(await this.#send({ method: "GET", path: "/v1/account" }))
  }

  /** The categories new memories are filed under: the account's own list, or the default one (`GET /v1/account/categories`). */
  async categories(): Promise<CategoryList> {
    return new CategoryList(await this.#send({ method: "GET", path: "/v1/account/categories" }))
  }

  /** Sets the account's categories, name and description each (null: the default list) (`PUT /v1/account/categories`). */
  async setCategories(categories: ReadonlyArray<Category> | null): Promise<CategoryList> {
    return new CategoryList(
      await this.#send({ method: "PUT", path: "/v1/account/categories", json: { categories } })
    )
  }

  /** Adds a webhook (`POST /v1/webhooks`); its `secret` is in this answer only. */
  async createWebhook(
    url: string,
    options: { readonly events?: ReadonlyArray<string>; readonly name?: string } = {}
  ): Promise<Webhook> {
    const json = {
      url,
      ...(options.events ? { events: options.events } : {}),
      ...(options.name ? { name: options.name } : {})
    }
    return new Webhook(await this.#send({ method: "POST", path: "/v1/webhooks", json }))
  }

  /** The account's webhooks (`GET /v1/webhooks`). */
  async webhooks(): Promise<Array<Webhook>> {
    const data = await this.#send({ method: "GET", path: "/v1/webhooks" })
    return (Array.isArray(data.webhooks) ? data.webhooks : []).map((w: Raw) => new Webhook(w))
  }

  /** Deletes a webhook (`DELETE /v1/webhooks/{id}`). */
  async deleteWebhook(id: string): Promise<Webhook> {
    return new Webhook(await this.#send({ method: "DELETE", path: `/v1/webhooks/${encodeURIComponent(id)}` }))
  }

  /**
   * A page of the account's hash chain, newest first (`GET /v1/account/chain`): its capture and
   * deletion entries as signed, to check offline with `verifyEntry` and the pinned keys.
   */
  async chain(options: ChainOptions = {}): Promise<ChainPage> {
    return new ChainPage(
      await this.#send({ method: "GET", path: "/v1/account/chain", query: chainRequest(options) })
    )
  }

  /**
   * The memories as the lines of an export (`GET /v1/export`), parsed as they arrive: the header,
   * each memory in capture order, the end. Write each out with `JSON.stringify(line)` and a newline
   * for a file `importMemories` reads. An export cut short raises; `afterId` resumes it.
   */
  exportMemories(options: ExportOptions = {}): AsyncIterable<ExportLine> {
    return exportLines(
      lines(this.#transport, {
        method: "GET",
        path: "/v1/export",
        query: queryOf(exportRequest(options)),
        accept: "application/x-ndjson, application/json"
      })
    )
  }

  /**
   * Imports an export of UMO or of Mem0 (`POST /v1/import`). Pieces (a file's stream, say) are sent
   * as they come, never held whole; such a body is sent once, not retried. Running an import again
   * stores nothing twice.
   */
  async importMemories(input: ImportInput, options: ImportOptions = {}): Promise<ImportSummary> {
    return new ImportSummary(
      await this.#send({
        method: "POST",
        path: "/v1/import",
        query: queryOf(importRequest(options)),
        body: { content: input, type: "application/x-ndjson" }
      })
    )
  }

  /** The answer models `answer` accepts (`GET /v1/ask/models`). */
  async models(): Promise<Models> {
    return new Models(await this.#send({ method: "GET", path: "/v1/ask/models" }))
  }

  /**
   * Whether the service is up (`GET /health`), and its search index: accounts served and loading,
   * memories and MiB held against its budget (`UMO_INDEX_MEMORY_MB`), accounts dropped to keep
   * within it, and its shard (`k/n`, or null); and a re-embedding under way: from which model to
   * which, its state and memories staged of all (null: none). Needs no key.
   */
  async health(): Promise<Health> {
    const data = await this.#send({ method: "GET", path: "/health", authenticated: false })
    const index = (data.index ?? {}) as Raw
    const reembedding = (data.reembedding ?? null) as Raw | null
    return {
      reembedding:
        reembedding === null
          ? null
          : {
              from: String(reembedding.from),
              to: String(reembedding.to),
              state: String(reembedding.state) as NonNullable<Health["reembedding"]>["state"],
              staged: Number(reembedding.staged),
              total: Number(reembedding.total),
              detail: typeof reembedding.detail === "string" ? reembedding.detail : null
            },
      status: String(data.status),
      index: {
        serving: Number(index.serving),
        loading: Number(index.loading),
        memories: Number(index.memories),
        heldMb: Number(index.held_mb),
        budgetMb: Number(index.budget_mb),
        evictions: Number(index.evictions),
        shard: typeof index.shard === "string" ? index.shard : null
      }
    }
  }

  /** The service's public signing keys as a JWK Set (`GET /.well-known/jwks.json`): current first,
   * then retired ones, with the key records linking them. Pin it once and check proofs and receipts
   * offline with `verifyProof` / `verifyReceipt`; a later fetch's `rotations` extend what you pinned
   * to keys it endorsed, never to others. */
  async signingKeys(): Promise<SigningKeySet> {
    const data = await this.#send({ method: "GET", path: "/.well-known/jwks.json", authenticated: false })
    return {
      keys: (Array.isArray(data.keys) ? data.keys : []) as Array<Jwk>,
      rotations: (Array.isArray(data.rotations) ? data.rotations : []) as Array<KeyRotation>
    }
  }
}
