/**
 * The errors only the HTTP face has: a missing or wrong key, a body over the limit, too many
 * requests. Each is a flat `{detail}` body (the spec's error shape: no wrapper, no tag) with its
 * status; the `X-Request-Id` header names the request. The service's own errors (404, 415, 422,
 * 502, 503) are `@umo/memory`'s, with their statuses.
 * @module
 */
import { Schema } from "effect"

const detail = { detail: Schema.String }

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(detail, {
  httpApiStatus: 401
}) {}
export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("PayloadTooLarge")(detail, {
  httpApiStatus: 413
}) {}
export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")(detail, {
  httpApiStatus: 429
}) {}
