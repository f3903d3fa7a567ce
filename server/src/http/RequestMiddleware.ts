import { randomUUID } from "node:crypto"
import { sha256Hex } from "@umo/core"
import { elapsedMs, type StageTiming, StageTimings } from "@umo/memory"
import { ReadsSince } from "@umo/plugins"
import { ByteSize, Cause, Effect } from "effect"
import {
  HttpEffect,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Multipart
} from "effect/http"
import { withoutKeys } from "../keys/ApiKeys.js"
import { allowedMethods } from "./AllowedMethods.js"
import { type Caller, type RateDecision, RateLimiter, RateToken, refusal } from "./RateLimiter.js"
import { readsOnly } from "./ReadOnlyCalls.js"
import { RequestId } from "./RequestContext.js"

/** The `Server-Timing` value: the whole request, then its stages (with what they did, where that varies). */
const serverTiming = (totalMs: number, stages: ReadonlyArray<StageTiming>) =>
  [
    `app;dur=${totalMs}`,
    ...stages.map(
      (s) => `${s.name};dur=${s.ms}${s.description === undefined ? "" : `;desc=${s.description}`}`
    )
  ].join(", ")

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/

/** `Retry-After` of a 503: a database restart or a standby's promotion takes a second or so. */
const retryAfterSeconds = 1

/**
 * Largest request body read (413 beyond): a full batch (100 items of 50,000 characters, up to 4
 * bytes each in UTF-8) fits; uploads have their own 20 MB file limit.
 */
export const maxBodySize = ByteSize.megabytes(24)

/**
 * Who sent the request, for its rate limit: its key's hash (never the key) and address. The key
 * comes as `Bearer`, or as `Token` from Mem0's clients on `/mem0`.
 */
const callerOf = (request: HttpServerRequest.HttpServerRequest): Caller => {
  const token = (request.headers["authorization"] ?? "").replace(/^(?:Bearer|Token)\s+/i, "").trim()
  return {
    keyHash: token.length > 0 ? sha256Hex(token) : undefined,
    address: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"
  }
}

/** A defect, but not the router's "no such route" (a plain 404 that needs no error log). */
const isUnexpected = (reason: Cause.Reason<unknown>) =>
  Cause.isDieReason(reason) &&
  !(HttpServerError.isHttpServerError(reason.defect) && reason.defect.reason._tag === "RouteNotFound")

const problem = (status: number, detail: string) => HttpServerResponse.jsonUnsafe({ detail }, { status })

const isJson = (response: HttpServerResponse.HttpServerResponse) =>
  (
    response.headers["content-type"] ??
    ("contentType" in response.body ? String(response.body.contentType) : "")
  ).includes("application/json")

/**
 * Every error leaves as a flat JSON `{detail}`: a 500 says only "internal error" and the request
 * id (never a stack trace); errors the platform answers in plain text (415, 413, 404 of an
 * unknown path) keep their status and get their text as `detail`, except a route that exists with
 * other methods, which is a 405 with an `Allow` header.
 */
const asProblem = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  method: string,
  path: string
) => {
  if (response.status < 400) return response
  if (response.status === 500) return problem(500, `internal error (request ${requestId})`)
  if (isJson(response)) return response
  if (response.status === 404) {
    const allowed = allowedMethods(path)
    if (allowed.length > 0 && !allowed.includes(method))
      return HttpServerResponse.setHeader(
        problem(405, `${method} is not allowed here; this path answers ${allowed.join(", ")}`),
        "allow",
        allowed.join(", ")
      )
  }
  const text = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body).trim() : ""
  const fallback =
    response.status === 404
      ? "no such route"
      : response.status === 400
        ? "the request body could not be read as its content type says (a malformed multipart body)"
        : `request failed with status ${response.status}`
  return problem(response.status, text.length > 0 && text.length < 300 ? text : fallback)
}

/**
 * A multipart body the platform could not take apart: too large is a 413, too many parts breaks
 * the upload's schema (one `file`, an optional `source`) and is a 422, anything else a 400.
 */
const multipartProblem = (error: Multipart.MultipartError) => {
  switch (error.reason._tag) {
    case "FileTooLarge":
    case "FieldTooLarge":
    case "BodyTooLarge":
      return problem(413, "the upload is too large: the file may take 20 MB, the whole body 24 MB")
    case "TooManyParts":
      return problem(422, "invalid request body: an upload has one `file` part and an optional `source` part")
    default:
      return problem(
        400,
        "the request body could not be read as its content type says (a malformed multipart body)"
      )
  }
}

const rateHeaders = (decision: RateDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds),
  ...(decision.allowed ? {} : { "retry-after": String(decision.retryAfterSeconds) })
})

/**
 * Wraps every request: gives it an id (the caller's `X-Request-Id` when well-formed, else a new
 * one) and echoes it; applies the caller's rate limit (429 with `Retry-After` and `RateLimit-*`
 * headers); makes every error a JSON `{detail}`; reports its time, and its stages' times, in
 * `Server-Timing`; and writes one JSON log line per request (id, method, path, status, duration;
 * never a key: one pasted into the path is cut to its public id). Response changes happen in a
 * pre-response handler, since the platform writes the handler's response before middleware sees it.
 */
export const requestMiddleware = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const limiter = yield* RateLimiter
    const given = request.headers["x-request-id"]
    const requestId = given && requestIdPattern.test(given) ? given : `req_${randomUUID()}`
    const started = performance.now()
    const stages: Array<StageTiming> = []
    const caller = callerOf(request)
    const path = request.url.split("?")[0]!
    // A call that only reads, from a key with tokens to spare, takes its token beside the call: the
    // key check of `Authentication` waits for it (and answers 429 if refused); a call that never
    // reaches the key check has it taken as it answers, and a refusal replaces that answer.
    const token =
      readsOnly(request.method, path) && limiter.ample(caller)
        ? yield* Effect.cached(limiter.take(caller))
        : undefined
    const finish = (decision: RateDecision) => (response: HttpServerResponse.HttpServerResponse) => {
      const durationMs = elapsedMs(started)
      const answered = asProblem(response, requestId, request.method, path)
      const final = HttpServerResponse.setHeaders(answered, {
        "x-request-id": requestId,
        // The time the server spent on the request and its stages (W3C Server Timing).
        "server-timing": serverTiming(durationMs, stages),
        ...rateHeaders(decision),
        // The database (or a model) is out for now (a failover, say): when to try again.
        ...(answered.status === 503 && answered.headers["retry-after"] === undefined
          ? { "retry-after": String(retryAfterSeconds) }
          : {})
      })
      // The log line is written once the answer has gone: written to a pipe or a file, standard
      // output blocks, and writing it first kept every answer 0.27 ms longer at p50 (searches at
      // 100k on PostgreSQL, 2026-11-27).
      return Effect.as(
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            request_id: requestId,
            method: request.method,
            path: withoutKeys(path),
            status: final.status,
            duration_ms: durationMs
          }),
          Effect.forkDetach
        ),
        final
      )
    }
    const refused = (decision: RateDecision) => finish(decision)(problem(429, refusal(decision)))
    if (token === undefined) {
      const decision = yield* limiter.take(caller)
      if (!decision.allowed) return yield* refused(decision)
      yield* HttpEffect.appendPreResponseHandler((_, response) => finish(decision)(response))
    } else
      yield* HttpEffect.appendPreResponseHandler((_, response) =>
        Effect.flatMap(token, (decision) =>
          decision.allowed || response.status === 429 ? finish(decision)(response) : refused(decision)
        )
      )
    return yield* app.pipe(
      Effect.catchDefect((defect) =>
        Multipart.isMultipartError(defect) ? Effect.succeed(multipartProblem(defect)) : Effect.die(defect)
      ),
      // A defect answers 500 "internal error (request …)": the log line with that id says why.
      Effect.tapCause((cause) =>
        cause.reasons.some(isUnexpected)
          ? Effect.logError("request failed").pipe(
              Effect.annotateLogs({ request_id: requestId, cause: withoutKeys(Cause.pretty(cause)) })
            )
          : Effect.void
      ),
      Effect.provideService(RequestId, requestId),
      Effect.provideService(RateToken, token),
      Effect.provideService(StageTimings, stages),
      // Reads see every write committed before the request began, on a replica or the primary.
      Effect.provideService(ReadsSince, started),
      Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBodySize)
    )
  })
