import { APIError, errorFor, parseRetryAfter, UMOError } from "./errors.js"
import type { Raw } from "./fields.js"

export interface TransportOptions {
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly timeoutMs: number
  readonly maxRetries: number
  /** Longest wait between attempts; a longer `Retry-After` is not waited for, the error is raised. */
  readonly maxRetryDelayMs: number
}

export interface Call {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  readonly query?: Readonly<Record<string, string | number | undefined>>
  readonly json?: unknown
  readonly form?: FormData
  /** Only `/health` and the signing keys are public. */
  readonly authenticated?: boolean
  /**
   * Sent as `Idempotency-Key` on every attempt: the service answers a repeat with the first answer
   * and stores nothing twice, so the call may also be retried when the connection fails.
   */
  readonly idempotencyKey?: string
}

/** 429 and 503 mean "not now": the request did nothing and may be sent again. */
const retryable = (status: number) => status === 429 || status === 503

/** A call that may be sent again after a lost connection or a timeout: a read, or an idempotent write. */
const repeatable = (call: Call) => call.method === "GET" || call.idempotencyKey !== undefined

/** Exponential backoff with full jitter: 0.5 s, 1 s, 2 s, … (capped), times a random factor. */
const backoffMs = (attempt: number, capMs: number) => Math.random() * Math.min(capMs, 500 * 2 ** attempt)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  if (text === "") return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The payload of a response: `data` of the spec's envelope, or the flat body. */
const unwrap = (body: unknown): Raw => {
  const object = (typeof body === "object" && body !== null ? body : {}) as Raw
  return object.status === "success" && typeof object.data === "object" && object.data !== null
    ? (object.data as Raw)
    : object
}

const detailOf = (body: unknown): string | null => {
  if (typeof body === "string") return body.slice(0, 500) || null
  const detail = (body as Raw | null)?.detail
  return typeof detail === "string" ? detail : null
}

/**
 * Sends one call, retrying 429 and 503 up to `maxRetries` times (and a lost connection or a timeout,
 * for a read or an idempotent write), and maps failures to errors.
 */
export const send = async (options: TransportOptions, call: Call): Promise<Raw> => {
  const url = new URL(options.baseUrl + call.path)
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value))
  const headers: Record<string, string> = { accept: "application/json" }
  if (call.authenticated !== false) {
    if (options.apiKey === undefined || options.apiKey === "")
      throw new UMOError("no API key: pass apiKey or set UMO_API_KEY")
    headers.authorization = `Bearer ${options.apiKey}`
  }
  if (call.json !== undefined) headers["content-type"] = "application/json"
  if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey
  const body = call.form ?? (call.json === undefined ? undefined : JSON.stringify(call.json))

  for (let attempt = 0; ; attempt++) {
    let response: Response
    try {
      response = await fetch(url, {
        method: call.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(options.timeoutMs)
      })
    } catch (cause) {
      if (repeatable(call) && attempt < options.maxRetries) {
        await sleep(backoffMs(attempt, options.maxRetryDelayMs))
        continue
      }
      const timedOut = cause instanceof DOMException && cause.name === "TimeoutError"
      throw new APIError(
        timedOut
          ? `${call.method} ${url.pathname} timed out after ${options.timeoutMs} ms`
          : `could not reach ${url.origin}: ${String(cause)}`
      )
    }
    const requestId = response.headers.get("x-request-id")
    const parsed = await readBody(response)
    if (response.ok) return unwrap(parsed)
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"))
    const waitMs = retryAfter === null ? backoffMs(attempt, options.maxRetryDelayMs) : retryAfter * 1000
    if (!retryable(response.status) || attempt >= options.maxRetries || waitMs > options.maxRetryDelayMs)
      throw errorFor(response.status, detailOf(parsed), requestId, retryAfter)
    await sleep(waitMs)
  }
}
