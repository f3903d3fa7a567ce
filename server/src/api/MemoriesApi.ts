import {
  BatchRequest,
  CaptureRequest,
  InvalidRequest,
  ListRequest,
  MemoryNotFound,
  Results,
  SearchRequest,
  Source,
  Unavailable,
  UnsupportedFile,
  uploadLimitBytes
} from "@umo/memory"
import { Schema } from "effect"
import { Multipart } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { PayloadTooLarge } from "./Errors.js"
import { IdempotencyHeaders, MemoryId } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

const id = { id: MemoryId }
const captureErrors = [InvalidRequest, Unavailable]
const readErrors = [MemoryNotFound, Unavailable]

// Each alias shares its call's whole definition.
const capture = {
  payload: CaptureRequest,
  headers: IdempotencyHeaders,
  success: Envelope(Results.Captured),
  error: captureErrors
}
const search = { payload: SearchRequest, success: Envelope(Results.SearchResults), error: captureErrors }

/** Capture, list, fetch, prove and delete memories. */
export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("process", "/v1/process", capture),
    HttpApiEndpoint.post("create", "/v1/memories", capture),
    HttpApiEndpoint.post("batch", "/v1/batch", {
      payload: BatchRequest,
      headers: IdempotencyHeaders,
      success: Envelope(Results.BatchResult),
      error: captureErrors
    }),
    HttpApiEndpoint.post("upload", "/v1/upload", {
      payload: HttpApiSchema.asMultipart({ maxFileSize: uploadLimitBytes, maxParts: 10 })(
        Schema.Struct({ file: Multipart.SingleFileSchema, source: Schema.optional(Source) })
      ),
      headers: IdempotencyHeaders,
      success: Envelope(Results.Uploaded),
      error: [InvalidRequest, UnsupportedFile, PayloadTooLarge, Unavailable]
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
      query: ListRequest,
      success: Envelope(Results.ListPage),
      error: [InvalidRequest, Unavailable]
    }),
    HttpApiEndpoint.get("get", "/v1/memories/:id", {
      params: id,
      success: Results.MemoryRecord,
      error: readErrors
    }),
    HttpApiEndpoint.get("proof", "/v1/memories/:id/proof", {
      params: id,
      success: Envelope(Results.Proof),
      error: readErrors
    }),
    HttpApiEndpoint.delete("forget", "/v1/memories/:id", {
      params: id,
      success: Results.DeletionReceipt,
      error: readErrors
    })
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
