import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { NotFound, ServiceUnavailable, Unprocessable } from "./Errors.js"
import { SchemaErrors } from "./SchemaErrors.js"
import {
  Captured,
  CaptureRequest,
  DeletionReceipt,
  Envelope,
  ListPage,
  ListQuery,
  Memory,
  Proof
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
