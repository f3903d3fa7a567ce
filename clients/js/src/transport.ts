import { APIError, errorFor, parseRetryAfter, UMOError } from "./errors.js"
import type { Raw } from "./fields.js"
import type { ImportInput } from "./UMOMemory.js"

export interface TransportOptions {
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly timeoutMs: number
  readonly maxRetries: number
  /** Longest wait between attempts; a longer `Retry-After` is not waited for, the error is raised. */
  readonly maxRetryDelayMs: number
}

export interface Call {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
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
  /**
   * A body sent as it is given (instead of `json` or `form`): text or bytes, or pieces of them
   * streamed as they come. A streamed body is sent once: it is not retried.
   */
  readonly body?: { readonly content: ImportInput; readonly type: string }
  /** The `Accept` header; default `application/json`. */
  readonly accept?: string
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

/** Aborts its signal once armed for `ms` without being disarmed: time spent waiting on the service. */
const watchdog = (ms: number) => {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const disarm = () => clearTimeout(timer)
  const arm = () => {
    disarm()
    if (stopped) return
    timer = setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")), ms)
    // It never keeps a process alive by itself: the request it watches does, while there is one.
    ;(timer as { unref?: () => void }).unref?.()
  }
  /** Disarms it for good: the attempt is over. */
  const stop = () => {
    stopped = true
    disarm()
  }
  return { signal: controller.signal, arm, disarm, stop }
}
type Watchdog = ReturnType<typeof watchdog>

/** A successful response, the watchdog of its attempt, and where it came from. */
interface Answered {
  readonly response: Response
  readonly timer: Watchdog
  readonly url: URL
}

/**
 * Pieces of a body as a stream the request reads as it sends: the watchdog is disarmed while the
 * next piece is made, so only the time the service takes counts. A failure of the pieces is kept,
 * to raise it rather than the failed request.
 */
const streamOf = (
  pieces: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  timer: Watchdog
) => {
  const encoder = new TextEncoder()
  const iterator = Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]()
  const failed: { cause?: unknown } = {}
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      timer.disarm()
      try {
        const next = await iterator.next()
        if (next.done) controller.close()
        else controller.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value)
      } catch (cause) {
        failed.cause = cause
        throw cause
      } finally {
        timer.arm()
      }
    },
    async cancel() {
      await iterator.return?.()
    }
  })
  return { stream, failed }
}

const isPieces = (content: ImportInput): content is Exclude<ImportInput, string | Uint8Array> =>
  typeof content !== "string" && !(content instanceof Uint8Array)

/** The error for a request that got no answer (or, `answered`, whose answer was cut short). */
const lost = (call: Call, url: URL, timeoutMs: number, cause: unknown, answered = false) =>
  cause instanceof DOMException && cause.name === "TimeoutError"
    ? new APIError(`${call.method} ${url.pathname} timed out after ${timeoutMs} ms`)
    : answered
      ? new APIError(`${call.method} ${url.pathname}: the response was cut short: ${String(cause)}`)
      : new APIError(`could not reach ${url.origin}: ${String(cause)}`)

/**
 * Sends one call, retrying 429 and 503 up to `maxRetries` times (and a lost connection or a timeout,
 * for a read or an idempotent write), and maps failures to errors. Answers the successful response
 * with its watchdog still armed: reading its body is the caller's.
 */
const respond = async (options: TransportOptions, call: Call): Promise<Answered> => {
  const url = new URL(options.baseUrl + call.path)
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value))
  const headers: Record<string, string> = { accept: call.accept ?? "application/json" }
  if (call.authenticated !== false) {
    if (options.apiKey === undefined || options.apiKey === "")
      throw new UMOError("no API key: pass apiKey or set UMO_API_KEY")
    headers.authorization = `Bearer ${options.apiKey}`
  }
  if (call.json !== undefined) headers["content-type"] = "application/json"
  if (call.body !== undefined) headers["content-type"] = call.body.type
  if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey
  const streamed = call.body !== undefined && isPieces(call.body.content)
  const maxRetries = streamed ? 0 : options.maxRetries

  for (let attempt = 0; ; attempt++) {
    const timer = watchdog(options.timeoutMs)
    const content = call.body?.content
    const pieces = content !== undefined && isPieces(content) ? streamOf(content, timer) : undefined
    const body =
      pieces?.stream ??
      (content as string | Uint8Array | undefined) ??
      call.form ??
      (call.json === undefined ? undefined : JSON.stringify(call.json))
    let response: Response
    timer.arm()
    try {
      response = await fetch(url, {
        method: call.method,
        headers,
        ...(body === undefined ? {} : { body: body as NonNullable<RequestInit["body"]> }),
        ...(pieces === undefined ? {} : { duplex: "half" }),
        signal: timer.signal
      })
    } catch (cause) {
      timer.stop()
      if (pieces !== undefined && "cause" in pieces.failed) throw pieces.failed.cause
      if (repeatable(call) && attempt < maxRetries) {
        await sleep(backoffMs(attempt, options.maxRetryDelayMs))
        continue
      }
      throw lost(call, url, options.timeoutMs, cause)
    }
    if (response.ok) return { response, timer, url }
    const requestId = response.headers.get("x-request-id")
    const parsed = await readBody(response).finally(timer.stop)
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"))
    const waitMs = retryAfter === null ? backoffMs(attempt, options.maxRetryDelayMs) : retryAfter * 1000
    if (!retryable(response.status) || attempt >= maxRetries || waitMs > options.maxRetryDelayMs)
      throw errorFor(response.status, detailOf(parsed), requestId, retryAfter)
    await sleep(waitMs)
  }
}

/** Sends one call (see `respond`) and answers the payload of its response. */
export const send = async (options: TransportOptions, call: Call): Promise<Raw> => {
  const { response, timer, url } = await respond(options, call)
  try {
    return unwrap(await readBody(response))
  } catch (cause) {
    throw lost(call, url, options.timeoutMs, cause, true)
  } finally {
    timer.stop()
  }
}

/**
 * Sends one call (see `respond`) and yields the lines of its response as they arrive: no line
 * waits for the whole body. The timeout counts while a line is awaited, not while the loop holds one.
 */
export async function* lines(options: TransportOptions, call: Call): AsyncGenerator<string> {
  const { response, timer, url } = await respond(options, call)
  timer.disarm()
  if (response.body === null) return
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  try {
    for (;;) {
      timer.arm()
      const read = await reader.read().catch((cause: unknown) => {
        throw lost(call, url, options.timeoutMs, cause, true)
      })
      timer.disarm()
      if (read.done) break
      let from = buffer.length
      buffer += read.value
      let start = 0
      for (let end = buffer.indexOf("\n", from); end !== -1; end = buffer.indexOf("\n", from)) {
        const line = buffer.slice(start, end).trim()
        start = from = end + 1
        if (line !== "") yield line
      }
      buffer = buffer.slice(start)
    }
    if (buffer.trim() !== "") yield buffer.trim()
  } finally {
    timer.stop()
    // The loop left early, or the read failed: the rest of the response is not wanted.
    await reader.cancel().catch(() => undefined)
  }
}
