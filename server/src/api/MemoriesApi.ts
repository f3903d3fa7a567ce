import { Schema } from "effect"
import { Multipart } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import {
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  Unprocessable,
  UnsupportedMediaType
} from "./Errors.js"
import { CaptureRequest, IdempotencyHeaders, MemoryId, Source } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import {
  BatchRequest,
  BatchResult,
  Captured,
  DeletionReceipt,
  Envelope,
  ListPage,
  ListQuery,
  Memory,
  Proof,
  SearchRequest,
  SearchResults,
  Uploaded
} from "./Schemas.js"

/** Largest upload accepted (DESIGN.md: 20 MB; 413 beyond). */
export const uploadLimitBytes = 20 * 1024 * 1024

const id = { id: MemoryId }
const captureErrors = [Unprocessable, ServiceUnavailable]
const readErrors = [NotFound, ServiceUnavailable]

// Each alias shares its call's whole definition.
const capture = {
  payload: CaptureRequest,
  headers: IdempotencyHeaders,
  success: Envelope(Captured),
  error: captureErrors
}
const search = { payload: SearchRequest, success: Envelope(SearchResults), error: captureErrors }

/** Capture, list, fetch, prove and delete memories. */
export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("process", "/v1/process", capture),
    HttpApiEndpoint.post("create", "/v1/memories", capture),
    HttpApiEndpoint.post("batch", "/v1/batch", {
      payload: BatchRequest,
      headers: IdempotencyHeaders,
      success: Envelope(BatchResult),
      error: captureErrors
    }),
    HttpApiEndpoint.post("upload", "/v1/upload", {
      payload: HttpApiSchema.asMultipart({ maxFileSize: uploadLimitBytes, maxParts: 10 })(
        Schema.Struct({ file: Multipart.SingleFileSchema, source: Schema.optional(Source) })
      ),
      headers: IdempotencyHeaders,
      success: Envelope(Uploaded),
      error: [Unprocessable, UnsupportedMediaType, PayloadTooLarge, ServiceUnavailable]
    }).annotate(
      OpenApi.Description,
      "Captures the text of a file (the `file` part, 20 MB at most): PDF, HTML, JSON, CSV, Markdown or plain " +
        "UTF-8 text; an image or audio file gives the text of its metadata, or what it is (format, name, size " +
        "or length) when it carries none, and a PDF without a text layer its page count and title. The bytes " +
        "decide the format. Rules on the file's content that a schema cannot state: a binary format other " +
        "than these is refused with 415, and a text file with no visible character in it with 422."
    ),
    HttpApiEndpoint.post("query", "/v1/memories/query", search),
    HttpApiEndpoint.post("search", "/v1/search", search),
    HttpApiEndpoint.get("list", "/v1/memories", {
      query: ListQuery,
      success: Envelope(ListPage),
      error: [Unprocessable, ServiceUnavailable]
    }),
    HttpApiEndpoint.get("get", "/v1/memories/:id", { params: id, success: Memory, error: readErrors }),
    HttpApiEndpoint.get("proof", "/v1/memories/:id/proof", {
      params: id,
      success: Envelope(Proof),
      error: readErrors
    }),
    HttpApiEndpoint.delete("forget", "/v1/memories/:id", {
      params: id,
      success: DeletionReceipt,
      error: readErrors
    })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
