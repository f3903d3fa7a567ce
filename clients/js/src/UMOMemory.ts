/**
 * The verbs of UMO, one interface for both ways of reaching it: `UMOClient` (the service over
 * HTTP) and `openMemory` from `@umo/memory` (the service in-process). The same arguments give the
 * same results and the same errors, so an app moves between the two by changing one line. The
 * request builders here are shared by both, so each sends the service the very same request.
 * @module
 */

import { ValidationError } from "./errors.js"
import type {
  BatchItem,
  Captured,
  ChainPage,
  DeletionReceipt,
  Explanation,
  Match,
  Memory,
  MemoryPage,
  MemorySummary,
  MetadataValue,
  Proof,
  ScopePage,
  Uploaded
} from "./models.js"
import type { Account, Answer, Category, CategoryList, Comparison, Models, Webhook } from "./results.js"
import type { SigningKeySet } from "./signed.js"
import type { ExportLine, ImportSummary } from "./transfers.js"
import type { ErasureReceipt, MemoryHistory } from "./versions.js"

/** Who a memory belongs to inside the account (each 1–200 printable characters). */
export interface Scope {
  /** The end user the memory is about or from. */
  readonly userId?: string
  /** The agent it belongs to. */
  readonly agentId?: string
  /** The conversation it came from. */
  readonly sessionId?: string
}

/** What a capture says about who it belongs to, its tags, and what it updates. */
export interface MemoryFields extends Scope {
  /** Your own tags: at most 32 keys ([A-Za-z0-9_.-]{1,64}), 8 KB in all. */
  readonly metadata?: Readonly<Record<string, MetadataValue>>
  /** Memories this one replaces: they leave default list, search and ask, and stay readable by id. */
  readonly supersedes?: ReadonlyArray<string>
  /** Also supersede the current memories whose facts this one states anew (default: the server's, on). */
  readonly inferUpdates?: boolean
  /**
   * Answer with the current memory of the same text, source, scope and metadata (`duplicateOf`) instead of
   * storing this one again, when its timestamp is the same or not given (default true).
   */
  readonly dedupe?: boolean
  /**
   * When it expires (a date means its start, UTC): it leaves list, search and answers then, and is
   * erased with a signed erasure receipt. Give this or `ttl`; default never.
   */
  readonly expiresAt?: Date | string
  /** Expires this many seconds from now (instead of `expiresAt`). */
  readonly ttl?: number
  /** Refuse every later update or supersession of it (it can still be deleted); default false. */
  readonly immutable?: boolean
}

export interface CaptureOptions extends MemoryFields {
  /** File it under these categories as given, instead of choosing them from the account's list. */
  readonly categories?: ReadonlyArray<string>
  /** Choose its categories from this list (name and description each) instead of the account's. */
  readonly customCategories?: ReadonlyArray<Category>
  /** Where the content came from; `list` and `ask` can filter by it. */
  readonly source?: string
  /** When the content was written (default: now); recency in search counts from it. */
  readonly timestamp?: Date | string
}

/** One item of `batch`: a text, or a text with its source, time, scope, tags and updates. */
export type BatchInput = string | ({ readonly content: string } & CaptureOptions)

/** A value a filter compares with. */
export type FilterScalar = string | number | boolean | null

/**
 * A filter expression (see the API's `filters`): AND / OR / NOT over conditions on `user_id`,
 * `agent_id`, `session_id`, `source`, `timestamp`, `created_at` and `metadata` keys, with `eq`, `ne`,
 * `gt`, `gte`, `lt`, `lte`, `in`, `nin`, `contains`, `icontains`, `exists` and `"*"`.
 */
export type FilterExpression = Readonly<Record<string, unknown>>

/** Which memories a read takes: every field narrows it (AND); none means all current memories. */
export interface Selection extends Scope {
  readonly source?: string
  /** Each key equal to its value, or to any of a list of values. */
  readonly metadata?: Readonly<Record<string, FilterScalar | ReadonlyArray<FilterScalar>>>
  /** Only memories written after this time. */
  readonly after?: Date | string
  /** Only memories written before this time. */
  readonly before?: Date | string
  /** Also memories a newer one superseded (default false). */
  readonly includeSuperseded?: boolean
  readonly filters?: FilterExpression
}

export interface ListOptions extends Selection {
  /** 1–100, default 20. */
  readonly limit?: number
  readonly offset?: number
}

/** Which memories `forgetAll` erases: at least one of `userId`, `agentId`, `sessionId`, narrowed by the rest. */
export type EraseOptions = Omit<Selection, "includeSuperseded">

/** A change to a memory: its new text, its new metadata (replacing the old whole), or both. */
export interface UpdateOptions extends Idempotent {
  readonly content?: string
  readonly metadata?: Readonly<Record<string, MetadataValue>>
  /** When the new version happened (default: the memory's own when only metadata changes, else now). */
  readonly timestamp?: Date | string
  /**
   * When it expires (null: never). Alone (or `ttl` alone) it moves the expiry in place, with no new
   * version; with content or metadata, the new version expires then (default: the memory's own).
   */
  readonly expiresAt?: Date | string | null
  /** Expires this many seconds from now (instead of `expiresAt`). */
  readonly ttl?: number
}

/** Which of the account's scopes `scopes` lists. */
export interface ScopesOptions {
  /** Only end users, agents or conversations (default all three). */
  readonly kind?: "user" | "agent" | "session"
  /** Only ids starting with this text. */
  readonly prefix?: string
  /** 1–100, default 20. */
  readonly limit?: number
  readonly offset?: number
}

export interface ChainOptions {
  /** 1–100, default 50. */
  readonly limit?: number
  /** Only entries with a lower `seq`: the previous page's `nextBefore`. */
  readonly before?: number
}

export interface AskOptions extends Selection {
  /** How many matches, default 5. */
  readonly limit?: number
  /** Rerank the best candidates with the server's cross-encoder (slower, better first results). */
  readonly rerank?: boolean
}

export interface AnswerOptions extends Selection {
  /** A model id from `models()`; default the local extractive model. */
  readonly model?: string
  /** Your own OpenAI or Anthropic key, for cloud models only; sent to the service, never stored. */
  readonly providerKey?: string
  /** How many memories the answer may draw on, default 5. */
  readonly contextSize?: number
}

/** Captures are idempotent: pass your own key to make a retry of your own (another process, say) safe too. */
export interface Idempotent {
  /** Sent as `Idempotency-Key` (1–255 visible ASCII characters); default: a new UUID per call. */
  readonly idempotencyKey?: string
}

export interface UploadOptions extends Idempotent, MemoryFields {
  /** The memory's source; default `upload:<filename>`. */
  readonly source?: string
}

export interface CompareOptions {
  /** Include the parts of the score and what the two memories share. */
  readonly explain?: boolean
  /** Score at which the two count as matched, 0–1, default 0.5. */
  readonly threshold?: number
}

export interface ExplainOptions {
  /** Also say why the memory matches this query (1,000 characters at most). */
  readonly query?: string
}

/** Which memories `exportMemories` writes (a selection, superseded ones included), and with what. */
export interface ExportOptions extends Selection {
  /** Also memories a newer one superseded (default true: an export keeps the history). */
  readonly includeSuperseded?: boolean
  /** Also each memory's chunk vectors (default false): a store with the same embedder embeds nothing on import. */
  readonly embeddings?: boolean
  /** Resume a cut export: only memories captured after this one (the `umo_id` of the last memory line had). */
  readonly afterId?: string
}

export interface ImportOptions {
  /** `umo` (an export of UMO), `mem0` (Mem0's `get_all` or export JSON, or a memory a line); default `auto`. */
  readonly format?: "auto" | "umo" | "mem0"
  /** A malformed line, or a memory whose proof fails: reported and skipped (default), or the import stops. */
  readonly onError?: "skip" | "stop"
  /** Let the imported memories supersede the ones their facts outdate (default false). */
  readonly inferUpdates?: boolean
}

/** What `importMemories` reads: the whole text or bytes, or their pieces as they come (a file's stream). */
export type ImportInput =
  | string
  | Uint8Array
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>

/** The verbs both `UMOClient` and `openMemory(…)` answer. */
export interface UMOMemory {
  /** Captures one text as a memory. */
  capture(content: string, options?: CaptureOptions & Idempotent): Promise<Captured>
  /** Captures up to 100 texts as one unit; one result per item, in order. */
  batch(items: ReadonlyArray<BatchInput>, options?: Idempotent): Promise<Array<BatchItem>>
  /** Captures a file: text, Markdown, HTML, JSON, CSV, PDF, image or audio metadata. */
  upload(file: Blob, filename: string, options?: UploadOptions): Promise<Uploaded>
  /** Changes a memory's text or metadata: a new version supersedes it, and the history keeps both. */
  update(id: string, change: UpdateOptions): Promise<Captured>
  /** The account's end users, agents and conversations, most recently active first. */
  scopes(options?: ScopesOptions): Promise<ScopePage>
  /** One memory with everything extracted from it. */
  get(id: string): Promise<Memory>
  /** A memory's line of versions, oldest first: what it superseded and what superseded it. */
  history(id: string): Promise<MemoryHistory>
  /** A page of memories, newest first. */
  list(options?: ListOptions): Promise<MemoryPage>
  /** Every memory (optionally of one source), fetched page by page as the loop asks for them. */
  iterate(options?: Omit<ListOptions, "offset">): AsyncGenerator<MemorySummary>
  /** Searches the memories, best first; no LLM is involved. */
  ask(query: string, options?: AskOptions): Promise<Array<Match>>
  /** An answer written from the memories, with `[n]` citations. */
  answer(question: string, options?: AnswerOptions): Promise<Answer>
  /** How alike two memories are. */
  compare(sourceId: string, candidateId: string, options?: CompareOptions): Promise<Comparison>
  /** The proof that a memory is unchanged since capture; check it offline with `verifyProof`. */
  verify(id: string): Promise<Proof>
  /** What was captured and extracted, and why. */
  explain(id: string, options?: ExplainOptions): Promise<Explanation>
  /** Deletes a memory and returns the signed receipt. */
  forget(id: string): Promise<DeletionReceipt>
  /** Deletes 1–1,000 memories by id as one unit, with one signed receipt; an unknown id deletes none. */
  forgetMany(ids: ReadonlyArray<string>): Promise<ErasureReceipt>
  /**
   * Changes 1–100 memories as one unit, each as `update` does (content, metadata or both): every new
   * version stored, or — one change refused — none.
   */
  updateMany(
    changes: ReadonlyArray<{ readonly id: string } & UpdateOptions>,
    options?: Idempotent
  ): Promise<Array<BatchItem>>
  /** Deletes every memory of an end user, agent or conversation (superseded ones too), with one signed receipt. */
  forgetAll(scope: EraseOptions): Promise<ErasureReceipt>
  /** The account the memories belong to. */
  account(): Promise<Account>
  /** The categories new memories are filed under: the account's own list, or the default one. */
  categories(): Promise<CategoryList>
  /** Sets the account's categories (null: back to the default list); memories captured keep theirs. */
  setCategories(categories: ReadonlyArray<Category> | null): Promise<CategoryList>
  /**
   * Adds a webhook: the events it hears are posted to `url`, signed (`umo-signature`) with the
   * secret this answer carries once, in chain order, at least once. Default: every event.
   */
  createWebhook(
    url: string,
    options?: { readonly events?: ReadonlyArray<string>; readonly name?: string }
  ): Promise<Webhook>
  /** The account's webhooks and how their deliveries stand. */
  webhooks(): Promise<Array<Webhook>>
  /** Deletes a webhook: nothing more is posted to it. */
  deleteWebhook(id: string): Promise<Webhook>
  /** The answer models `answer` accepts. */
  models(): Promise<Models>
  /** The public signing keys (a JWK Set) and the key records that link them: pin them once. */
  signingKeys(): Promise<SigningKeySet>
  /** A page of the account's hash chain, newest first; check each entry offline with `verifyEntry`. */
  chain(options?: ChainOptions): Promise<ChainPage>
  /** The memories as the lines of an export, read as the loop asks: header, each memory, end. */
  exportMemories(options?: ExportOptions): AsyncIterable<ExportLine>
  /** Imports an export of UMO or of Mem0, read as it comes; an original already imported is not stored again. */
  importMemories(input: ImportInput, options?: ImportOptions): Promise<ImportSummary>
}

const iso = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString() : time)

const scopeOptions = ["userId", "agentId", "sessionId"]
const selectionOptions = [
  ...scopeOptions,
  "source",
  "metadata",
  "after",
  "before",
  "includeSuperseded",
  "filters"
]
const memoryOptions = [
  ...scopeOptions,
  "metadata",
  "supersedes",
  "inferUpdates",
  "dedupe",
  "expiresAt",
  "ttl",
  "immutable"
]
const captureOptions = [...memoryOptions, "source", "timestamp", "categories", "customCategories"]

/** The options each call takes: any other is refused, in plain JavaScript too. */
const optionsOf = {
  capture: [...captureOptions, "idempotencyKey"],
  "batch item": ["content", ...captureOptions],
  upload: [...memoryOptions, "source", "idempotencyKey"],
  update: ["content", "metadata", "timestamp", "expiresAt", "ttl", "idempotencyKey"],
  scopes: ["kind", "prefix", "limit", "offset"],
  list: [...selectionOptions, "limit", "offset"],
  ask: [...selectionOptions, "limit", "rerank"],
  answer: [...selectionOptions, "model", "providerKey", "contextSize"],
  forgetAll: selectionOptions.filter((o) => o !== "includeSuperseded"),
  export: [...selectionOptions, "embeddings", "afterId"],
  import: ["format", "onError", "inferUpdates"],
  compare: ["explain", "threshold"],
  explain: ["query"],
  chain: ["limit", "before"]
} as const

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

/**
 * Refuses an option the call does not take, as the service refuses an unknown field: a misspelt
 * one (`user_id` for `userId`) would otherwise be dropped, and a capture stored with no user.
 */
export const checkOptions = (call: keyof typeof optionsOf, options: unknown): void => {
  if (options === undefined) return
  const allowed: ReadonlyArray<string> = optionsOf[call]
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw refused(`invalid options: ${call} takes an object of options (${allowed.join(", ")})`)
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue
    const meant = camelCase(key)
    const hint = meant !== key && allowed.includes(meant) ? ` (did you mean ${meant}?)` : ""
    throw refused(`invalid options: ${key}: not an option of ${call}${hint}; it takes ${allowed.join(", ")}`)
  }
}

const refused = (detail: string) => new ValidationError(`422: ${detail}`, 422, detail)

/** Only the fields that are set. */
const defined = <T extends Record<string, unknown>>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>

/** The scope fields of a request. */
const scopeFields = (scope: Scope) =>
  defined({ user_id: scope.userId, agent_id: scope.agentId, session_id: scope.sessionId })

/** The capture request (`POST /v1/process`, and each item of a batch). */
export const captureRequest = (content: string, options: CaptureOptions & Idempotent = {}) => {
  checkOptions("capture", options)
  return captureFields(content, options)
}

const captureFields = (content: string, options: CaptureOptions) => ({
  content,
  ...defined({
    source: options.source,
    timestamp: iso(options.timestamp),
    categories: options.categories,
    custom_categories: options.customCategories
  }),
  ...memoryFields(options)
})

/** A capture's scope, tags and updates, as the API names them (an upload's form fields too). */
export const memoryFields = (options: MemoryFields) => ({
  ...scopeFields(options),
  ...defined({
    metadata: options.metadata,
    supersedes: options.supersedes,
    infer_updates: options.inferUpdates,
    dedupe: options.dedupe,
    expires_at: iso(options.expiresAt),
    ttl: options.ttl,
    immutable: options.immutable
  })
})

/** An upload's form fields besides the file. */
export const uploadRequest = (options: UploadOptions = {}) => {
  checkOptions("upload", options)
  return { ...defined({ source: options.source }), ...memoryFields(options) }
}

/** The request of a change of many memories (`POST /v1/memories/update`). */
export const updateManyRequest = (changes: ReadonlyArray<{ readonly id: string } & UpdateOptions>) => ({
  updates: changes.map(({ id, ...change }) => ({ umo_id: id, ...updateRequest(change) }))
})

/** The update request (`PATCH /v1/memories/{id}`). */
export const updateRequest = (change: UpdateOptions) => {
  checkOptions("update", change)
  return defined({
    content: change.content,
    metadata: change.metadata,
    timestamp: iso(change.timestamp),
    expires_at: change.expiresAt === null ? null : iso(change.expiresAt),
    ttl: change.ttl
  })
}

/** The scopes request (`GET /v1/scopes`). */
export const scopesRequest = (options: ScopesOptions = {}) => {
  checkOptions("scopes", options)
  return defined({ kind: options.kind, prefix: options.prefix, limit: options.limit, offset: options.offset })
}

/** The selection fields of a read (`list`, `ask`, `answer`, `forgetAll`), as the API names them. */
export const selectionRequest = (selection: EraseOptions) => {
  checkOptions("forgetAll", selection)
  return selectionFields(selection)
}

const selectionFields = (selection: Selection) => ({
  ...scopeFields(selection),
  ...defined({
    source: selection.source,
    metadata: selection.metadata,
    after: iso(selection.after),
    before: iso(selection.before),
    include_superseded: selection.includeSuperseded,
    filters: selection.filters
  })
})

/** The list request (`GET /v1/memories`), JSON-valued fields as objects. */
export const listRequest = (options: ListOptions = {}) => {
  checkOptions("list", options)
  const { limit, offset, ...selection } = options
  return { ...defined({ limit, offset }), ...selectionFields(selection) }
}

/** The export request (`GET /v1/export`), JSON-valued fields as objects. */
export const exportRequest = (options: ExportOptions = {}) => {
  checkOptions("export", options)
  const { embeddings, afterId, ...selection } = options
  return { ...selectionFields(selection), ...defined({ embeddings, after_id: afterId }) }
}

/** The import request (the query of `POST /v1/import`). */
export const importRequest = (options: ImportOptions = {}) => {
  checkOptions("import", options)
  return defined({ format: options.format, on_error: options.onError, infer_updates: options.inferUpdates })
}

/** The batch request (`POST /v1/batch`). */
export const batchRequest = (items: ReadonlyArray<BatchInput>) => ({
  items: items.map((item) => {
    if (typeof item === "string") return { content: item }
    checkOptions("batch item", item)
    return captureFields(item.content, item)
  })
})

/** The search request (`POST /v1/memories/query`). */
export const askRequest = (query: string, options: AskOptions = {}) => {
  checkOptions("ask", options)
  const { limit, rerank, ...selection } = options
  return { query, ...defined({ limit, rerank }), ...selectionFields(selection) }
}

/** The answer request (`POST /v1/ask`). */
export const answerRequest = (question: string, options: AnswerOptions = {}) => {
  checkOptions("answer", options)
  const { model, providerKey, contextSize, ...selection } = options
  return {
    question,
    ...defined({ model, provider_key: providerKey, context_size: contextSize }),
    ...selectionFields(selection)
  }
}

/** The comparison request (`POST /v1/match`). */
export const compareRequest = (sourceId: string, candidateId: string, options: CompareOptions = {}) => {
  checkOptions("compare", options)
  return { source_ulid: sourceId, candidate_ulid: candidateId, ...options }
}

/** The explain request (the query of `GET /v1/memories/{id}/explain`). */
export const explainRequest = (options: ExplainOptions = {}) => {
  checkOptions("explain", options)
  return defined({ query: options.query })
}

/** The chain request (the query of `GET /v1/account/chain`). */
export const chainRequest = (options: ChainOptions = {}) => {
  checkOptions("chain", options)
  return defined({ limit: options.limit, before: options.before })
}

/** Every memory, page by page: `iterate` on top of `list`. */
export async function* iteratePages(
  list: (options: ListOptions) => Promise<MemoryPage>,
  options: Omit<ListOptions, "offset"> = {}
): AsyncGenerator<MemorySummary> {
  for (let offset = 0; ; ) {
    const page = await list({ ...options, offset })
    yield* page.items
    offset += page.items.length
    if (!page.hasMore || page.items.length === 0) return
  }
}
