import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { NotFound, ServiceUnavailable, Unprocessable } from "./Errors.js"
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
  SearchResults
} from "./Schemas.js"

const id = { id: Schema.String }
const captureErrors = [Unprocessable, ServiceUnavailable]
const readErrors = [NotFound, ServiceUnavailable]

/** Capture, list, fetch, prove and delete memories. */
export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("process", "/v1/process", {
      payload: CaptureRequest,
      success: Envelope(Captured),
      error: captureErrors
    }),
    HttpApiEndpoint.post("create", "/v1/memories", {
      payload: CaptureRequest,
      success: Envelope(Captured),
      error: captureErrors
    }),
    HttpApiEndpoint.post("batch", "/v1/batch", {
      payload: BatchRequest,
      success: Envelope(BatchResult),
      error: captureErrors
    }),
    HttpApiEndpoint.post("query", "/v1/memories/query", {
      payload: SearchRequest,
      success: Envelope(SearchResults),
      error: captureErrors
    }),
    HttpApiEndpoint.post("search", "/v1/search", {
      payload: SearchRequest,
      success: Envelope(SearchResults),
      error: captureErrors
    }),
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
