/**
 * @umo/client: a zero-dependency client for the UMO API. It needs only the platform's `fetch`,
 * `FormData`, `Blob` and WebCrypto (Node ≥ 22, Deno, Bun, browsers).
 *
 * ```ts
 * import { UMOClient } from "@umo/client"
 * const umo = new UMOClient() // UMO_API_KEY, UMO_BASE_URL
 * const { umoId } = await umo.capture("Lunch with Ana at Nopa on Friday.")
 * const [best] = await umo.ask("Where did I have lunch?")
 * ```
 * @module
 */
export {
  APIError,
  AuthenticationError,
  errorFor,
  NotFoundError,
  RateLimitError,
  UMOError,
  ValidationError,
  VerificationError
} from "./errors.js"
export {
  BatchItem,
  Captured,
  ChainPage,
  DeletionReceipt,
  type Entity,
  Explanation,
  type LaterRelated,
  type LedgerEntry,
  laterRelatedOf,
  Match,
  Memory,
  MemoryPage,
  MemorySummary,
  type MetadataValue,
  Proof,
  type Raw,
  ScopePage,
  ScopeSummary,
  type Topic,
  type Triple,
  Uploaded
} from "./models.js"
export {
  Account,
  Answer,
  type Category,
  CategoryList,
  type Citation,
  Comparison,
  Models,
  Webhook
} from "./results.js"
export { fixedScope, inScope } from "./scope.js"
export {
  type AnsweredFromMemories,
  type Forgotten,
  type FoundMemories,
  type Remembered,
  scopedVerbs,
  scopedVerbWords
} from "./scopedVerbs.js"
export {
  type ExportEnd,
  type ExportedMemory,
  type ExportHeader,
  type ExportLine,
  type ImportedFrom,
  type ImportFailure,
  ImportSummary
} from "./transfers.js"
export { type Health, UMOClient, type UMOClientOptions } from "./UMOClient.js"
export {
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
  checkOptions,
  compareRequest,
  type EraseOptions,
  type ExplainOptions,
  type ExportOptions,
  explainRequest,
  exportRequest,
  type FilterExpression,
  type FilterScalar,
  type Idempotent,
  type ImportInput,
  type ImportOptions,
  importRequest,
  iteratePages,
  type ListOptions,
  listRequest,
  type MemoryFields,
  memoryFields,
  type Scope,
  type ScopesOptions,
  type Selection,
  scopesRequest,
  selectionRequest,
  type UMOMemory,
  type UpdateOptions,
  type UploadOptions,
  updateManyRequest,
  updateRequest,
  uploadRequest
} from "./UMOMemory.js"
export {
  entryHash,
  type Jwk,
  type KeyRotation,
  keyThumbprint,
  type PublicKey,
  type ReceiptClaims,
  type SigningKeySet,
  trustedKeys,
  verifyEntry,
  verifyProof,
  verifyReceipt
} from "./verify.js"
export { ErasureReceipt, MemoryHistory } from "./versions.js"
