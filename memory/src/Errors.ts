/**
 * What a call of the Memory service can fail with. Each is a flat `{detail}` (the API's error
 * shape) and carries the HTTP status the reference server answers it with; the Promise facade
 * turns each into the error `@umo/client` raises for that status, so both fail alike.
 * @module
 */
import { isUmoId, type LedgerError, type PipelineError, type StoreError } from "@umo/core"
import { Effect, type SchemaIssue as Issue, Schema, SchemaAST, SchemaIssue } from "effect"

const detail = { detail: Schema.String }

/** No memory with that id in the account: unknown, malformed, deleted or another account's (404). */
export class MemoryNotFound extends Schema.Error<MemoryNotFound>("MemoryNotFound")(detail, {
  httpApiStatus: 404
}) {}

/** The request breaks a rule: a field out of its limits, an unknown model, a reused idempotency key (422). */
export class InvalidRequest extends Schema.Error<InvalidRequest>("InvalidRequest")(detail, {
  httpApiStatus: 422
}) {}

/** A file in a format no configured parser reads (415). */
export class UnsupportedFile extends Schema.Error<UnsupportedFile>("UnsupportedFile")(detail, {
  httpApiStatus: 415
}) {}

/** The provider of a cloud answer model failed or refused the caller's key (502). */
export class ProviderFailed extends Schema.Error<ProviderFailed>("ProviderFailed")(detail, {
  httpApiStatus: 502
}) {}

/** The database cannot be reached, or this process's signing key was retired: retry shortly (503). */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(detail, {
  httpApiStatus: 503
}) {}

/** Every error a call of the Memory service fails with. */
export type MemoryError = MemoryNotFound | InvalidRequest | UnsupportedFile | ProviderFailed | Unavailable

/**
 * The 404 of every call that takes an id. Only a well-formed id is echoed: whatever else was sent
 * (a pasted API key, say) is not repeated.
 */
export const memoryNotFound = (id: string) =>
  new MemoryNotFound({
    detail: isUmoId(id) ? `no memory with id ${id}` : "no memory with that id (a memory id is a UUID)"
  })

/**
 * Maps a store failure: an unreachable database is Unavailable, and so is a signing key retired by
 * a rotation while this process runs (another replica, restarted with the current key, can serve
 * the retry); a capture superseding an unknown memory is that memory's 404, one superseding a
 * memory already superseded an InvalidRequest; anything else is a defect.
 */
export const storeFailure = (error: StoreError | LedgerError) =>
  error.reason === "UnknownMemory"
    ? Effect.fail(memoryNotFound(error.umo_id ?? ""))
    : error.reason === "AlreadySuperseded" || error.reason === "Immutable"
      ? Effect.fail(new InvalidRequest({ detail: `invalid request body: supersedes: ${error.detail}` }))
      : storeUnavailable(error)

/** A store failure that is no caller's fault: the database or the signing key, to retry (anything else is a defect). */
export const storeUnavailable = (error: StoreError | LedgerError) =>
  error.reason === "Unavailable" || error.reason === "EmbedderSwitched"
    ? Effect.logWarning(error.detail).pipe(
        Effect.andThen(
          Effect.fail(
            new Unavailable({
              detail:
                error.reason === "Unavailable"
                  ? "the database is unavailable; retry shortly"
                  : "the store moved to another embedding model while this was written; retry"
            })
          )
        )
      )
    : error.reason === "SigningKeyRetired"
      ? Effect.logError(error.detail).pipe(
          Effect.andThen(
            Effect.fail(
              new Unavailable({
                detail:
                  "this server's signing key was retired by a key rotation and it must be restarted with the current key; retry shortly"
              })
            )
          )
        )
      : Effect.die(error)

/** Maps a pipeline failure: bad input is the caller's (InvalidRequest); the rest is a defect. */
export const pipelineFailure = (error: PipelineError) =>
  error.reason === "InvalidInput"
    ? Effect.fail(new InvalidRequest({ detail: error.detail }))
    : Effect.die(error)

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * What a failed decoding says, field by field: `items.3.content: must contain a visible character;
 * limit: Expected a value between 1 and 100` (the field's path, then the rule it broke), after
 * `prefix` (e.g. "invalid request body: ").
 */
export const describeIssue = (issue: Issue.Issue, prefix = ""): string => {
  const problems = standard(issue).issues.map((problem) => {
    const path = (problem.path ?? [])
      .map((p) => (typeof p === "object" ? String(p.key) : String(p)))
      .join(".")
    return `${path.length > 0 ? `${path}: ` : ""}${problem.message.replace(/\s+/g, " ")}`
  })
  const shown = problems.slice(0, 5).join("; ")
  return `${prefix}${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`.slice(0, 1_000)
}

/** Where a request's fields travel over HTTP, which a failure names as the API does. */
export type RequestPart = "request body" | "query string" | "headers"

/**
 * Decodes a request with its schema; a failure is an InvalidRequest naming each field and rule,
 * worded as the HTTP API words it for the `part` of the request the fields travel in.
 */
export const decodeRequest =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, part: RequestPart) =>
  (input: unknown): Effect.Effect<S["Type"], InvalidRequest> =>
    Schema.decodeUnknownEffect(schema)(input, { onExcessProperty: "error" }).pipe(
      Effect.mapError(
        (error) => new InvalidRequest({ detail: describeIssue(error.issue, `invalid ${part}: `) })
      )
    )

const errorClasses = [MemoryNotFound, InvalidRequest, UnsupportedFile, ProviderFailed, Unavailable] as const

/** Whether a failure is one of the service's errors. */
export const isMemoryError = (error: unknown): error is MemoryError =>
  errorClasses.some((c) => error instanceof c)

/** The HTTP status an error of the service is answered with (its class's `httpApiStatus`). */
export const statusOf = (error: MemoryError): number => {
  const errorClass = errorClasses.find((c) => error instanceof c)
  return Number(
    errorClass === undefined ? 500 : (SchemaAST.resolve(errorClass.ast)?.["httpApiStatus"] ?? 500)
  )
}
