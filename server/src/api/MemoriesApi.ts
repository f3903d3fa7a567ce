import { Schema } from "effect"
import { Multipart } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import {
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  Unprocessable,
  UnsupportedMediaType
} from "./Errors.js"
import { SchemaErrors } from "./SchemaErrors.js"
import {
  BatchRequest,
  BatchResult,
  Captured,
  CaptureRequest,
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

const id = { id: Schema.String }
const captureErrors = [Unprocessable, ServiceUnavailable]
const readErrors = [NotFound, ServiceUnavailable]

// Each alias shares its call's whole definition.
const capture = { payload: CaptureRequest, success: Envelope(Captured), error: captureErrors }
const search = { payload: SearchRequest, success: Envelope(SearchResults), error: captureErrors }

/** Capture, list, fetch, prove and delete memories. */
export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("process", "/v1/process", capture),
    HttpApiEndpoint.post("create", "/v1/memories", capture),
    HttpApiEndpoint.post("batch", "/v1/batch", {
      payload: BatchRequest,
      success: Envelope(BatchResult),
      error: captureErrors
    }),
    HttpApiEndpoint.post("upload", "/v1/upload", {
      payload: HttpApiSchema.asMultipart({ maxFileSize: uploadLimitBytes, maxParts: 10 })(
        Schema.Struct({ file: Multipart.SingleFileSchema, source: Schema.optional(Schema.String) })
      ),
      success: Envelope(Uploaded),
      error: [Unprocessable, UnsupportedMediaType, PayloadTooLarge, ServiceUnavailable]
    }),
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
