import { isUmoId } from "@umo/core"
import { Schema } from "effect"

/**
 * The API's errors. Each is a flat `{detail}` body (the spec's error shape: no wrapper, no tag)
 * with its HTTP status; the `X-Request-Id` header names the request.
 */
const detail = { detail: Schema.String }

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(detail, {
  httpApiStatus: 401
}) {}
export class NotFound extends Schema.Error<NotFound>("NotFound")(detail, { httpApiStatus: 404 }) {}
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("PayloadTooLarge")(detail, {
  httpApiStatus: 413
}) {}
export class UnsupportedMediaType extends Schema.Error<UnsupportedMediaType>("UnsupportedMediaType")(detail, {
  httpApiStatus: 415
}) {}
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(detail, {
  httpApiStatus: 422
}) {}
export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(detail, {
  httpApiStatus: 429
}) {}
export class InternalError extends Schema.Error<InternalError>("InternalError")(detail, {
  httpApiStatus: 500
}) {}
export class BadGateway extends Schema.Error<BadGateway>("BadGateway")(detail, { httpApiStatus: 502 }) {}
export class ServiceUnavailable extends Schema.Error<ServiceUnavailable>("ServiceUnavailable")(detail, {
  httpApiStatus: 503
}) {}

/**
 * The 404 of every call that takes an id: unknown, malformed, deleted or another account's. Only
 * a well-formed id is echoed: whatever else was sent (a pasted API key, say) is not repeated.
 */
export const memoryNotFound = (id: string) =>
  new NotFound({
    detail: isUmoId(id) ? `no memory with id ${id}` : "no memory with that id (a memory id is a UUID)"
  })
