/** Base class of every error the client raises: the HTTP status (null when no response came), the
 * service's `detail` and the `X-Request-Id` to quote when reporting a problem. */
export class UMOError extends Error {
  override readonly name: string = "UMOError"
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly detail: string | null = null,
    readonly requestId: string | null = null
  ) {
    super(message)
  }
}

/** 401: the key is missing, unknown or revoked. */
export class AuthenticationError extends UMOError {
  override readonly name = "AuthenticationError"
}

/** 404: no memory with that id in the caller's account. */
export class NotFoundError extends UMOError {
  override readonly name = "NotFoundError"
}

/** 429: too many requests; `retryAfter` is the wait the service asked for, in seconds. */
export class RateLimitError extends UMOError {
  override readonly name = "RateLimitError"
  constructor(
    message: string,
    status: number,
    detail: string | null,
    requestId: string | null,
    readonly retryAfter: number | null
  ) {
    super(message, status, detail, requestId)
  }
}

/** 400, 413, 415, 422: the request itself is wrong (bad field, too large, unsupported file). */
export class ValidationError extends UMOError {
  override readonly name = "ValidationError"
}

/** Any other failure: 5xx, a provider error behind `/v1/ask` (502), a timeout or no connection
 * (`status` null). */
export class APIError extends UMOError {
  override readonly name = "APIError"
}

/** An offline check of a proof or receipt failed: the signature, the key or the content does not match. */
export class VerificationError extends UMOError {
  override readonly name = "VerificationError"
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export const parseRetryAfter = (header: string | null, now = Date.now()): number | null => {
  if (header === null || header.trim() === "") return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds)
  const date = Date.parse(header)
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000)
}

/** The error class for an HTTP error status. */
export const errorFor = (
  status: number,
  detail: string | null,
  requestId: string | null,
  retryAfter: number | null
): UMOError => {
  const message = `${status}: ${detail ?? "no detail"}${requestId ? ` (request ${requestId})` : ""}`
  if (status === 401 || status === 403) return new AuthenticationError(message, status, detail, requestId)
  if (status === 404) return new NotFoundError(message, status, detail, requestId)
  if (status === 429) return new RateLimitError(message, status, detail, requestId, retryAfter)
  if (status === 400 || status === 413 || status === 415 || status === 422)
    return new ValidationError(message, status, detail, requestId)
  return new APIError(message, status, detail, requestId)
}
