/**
 * The verbs of UMO, one interface for both ways of reaching it: `UMOClient` (the service over
 * HTTP) and `openMemory` from `@umo/memory` (the service in-process). The same arguments give the
 * same results and the same errors, so an app moves between the two by changing one line. The
 * request builders here are shared by both, so each sends the service the very same request.
 * @module
 */
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
  Proof,
  Uploaded
} from "./models.js"
import type { Account, Answer, Comparison, Models } from "./results.js"
import type { SigningKeySet } from "./verify.js"

export interface CaptureOptions {
  /** Where the content came from; `list` and `ask` can filter by it. */
  readonly source?: string
  /** When the content was written (default: now); recency in search counts from it. */
  readonly timestamp?: Date | string
}

/** One item of `batch`: a text, or a text with its source and time. */
export type BatchInput = string | ({ readonly content: string } & CaptureOptions)

export interface ListOptions {
  /** 1–100, default 20. */
  readonly limit?: number
  readonly offset?: number
  readonly source?: string
}

export interface ChainOptions {
  /** 1–100, default 50. */
  readonly limit?: number
  /** Only entries with a lower `seq`: the previous page's `nextBefore`. */
  readonly before?: number
}

export interface AskOptions {
  /** How many matches, default 5. */
  readonly limit?: number
  readonly source?: string
}

export interface AnswerOptions {
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

export interface UploadOptions extends Idempotent {
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

/** The verbs both `UMOClient` and `openMemory(…)` answer. */
export interface UMOMemory {
  /** Captures one text as a memory. */
  capture(content: string, options?: CaptureOptions & Idempotent): Promise<Captured>
  /** Captures up to 100 texts as one unit; one result per item, in order. */
  batch(items: ReadonlyArray<BatchInput>, options?: Idempotent): Promise<Array<BatchItem>>
  /** Captures a file: text, Markdown, HTML, JSON, CSV, PDF, image or audio metadata. */
  upload(file: Blob, filename: string, options?: UploadOptions): Promise<Uploaded>
  /** One memory with everything extracted from it. */
  get(id: string): Promise<Memory>
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
  /** The account the memories belong to. */
  account(): Promise<Account>
  /** The answer models `answer` accepts. */
  models(): Promise<Models>
  /** The public signing keys (a JWK Set) and the key records that link them: pin them once. */
  signingKeys(): Promise<SigningKeySet>
  /** A page of the account's hash chain, newest first; check each entry offline with `verifyEntry`. */
  chain(options?: ChainOptions): Promise<ChainPage>
}

const iso = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString() : time)

/** The capture request (`POST /v1/process`, and each item of a batch). */
export const captureRequest = (content: string, options: CaptureOptions = {}) => ({
  content,
  ...(options.source === undefined ? {} : { source: options.source }),
  ...(options.timestamp === undefined ? {} : { timestamp: iso(options.timestamp) })
})

/** The batch request (`POST /v1/batch`). */
export const batchRequest = (items: ReadonlyArray<BatchInput>) => ({
  items: items.map((item) =>
    typeof item === "string" ? { content: item } : captureRequest(item.content, item)
  )
})

/** The search request (`POST /v1/memories/query`). */
export const askRequest = (query: string, options: AskOptions = {}) => ({ query, ...options })

/** The answer request (`POST /v1/ask`). */
export const answerRequest = (question: string, options: AnswerOptions = {}) => ({
  question,
  ...(options.model === undefined ? {} : { model: options.model }),
  ...(options.providerKey === undefined ? {} : { provider_key: options.providerKey }),
  ...(options.contextSize === undefined ? {} : { context_size: options.contextSize })
})

/** The comparison request (`POST /v1/match`). */
export const compareRequest = (sourceId: string, candidateId: string, options: CompareOptions = {}) => ({
  source_ulid: sourceId,
  candidate_ulid: candidateId,
  ...options
})

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
