import {
  BatchRequest,
  CaptureRequest,
  EraseFields,
  FilterExpression,
  ForgetManyRequest,
  InvalidRequest,
  LifetimeFields,
  ListRequest,
  longestTtlSeconds,
  MemoryNotFound,
  Metadata,
  MetadataMatch,
  Results,
  ScopeAndMetadata,
  ScopesRequest,
  SearchRequest,
  Source,
  Unavailable,
  UnsupportedFile,
  UpdateFields,
  UpdateManyRequest,
  UpdateRequest,
  uploadLimitBytes
} from "@umo/memory"
import { Schema, SchemaGetter } from "effect"
import { Multipart } from "effect/http"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { PayloadTooLarge } from "./Errors.js"
import { IdempotencyHeaders, MemoryId } from "./Fields.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

const id = { id: MemoryId }
const captureErrors = [InvalidRequest, MemoryNotFound, Unavailable]

/**
 * The selection fields a query string carries as JSON (`metadata`, `filters`): the same schemas
 * as in a body, URL-encoded; the document describes them as JSON-valued parameters.
 */
export const jsonQueryFields = {
  metadata: Schema.optional(Schema.fromJsonString(MetadataMatch)),
  filters: Schema.optional(Schema.fromJsonString(FilterExpression))
}

/** `GET /v1/memories`: the list request, its JSON-valued fields as JSON text. */
export const ListQuery = Schema.Struct({ ...ListRequest.fields, ...jsonQueryFields })

/** `DELETE /v1/memories`: the erasure's fields, JSON-valued ones as JSON text. */
export const EraseQuery = Schema.Struct({ ...EraseFields, ...jsonQueryFields })

/** A form field that is `true` or `false`. */
const FormBoolean = Schema.Literals(["true", "false"]).pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((text: "true" | "false") => text === "true"),
    encode: SchemaGetter.transform((flag: boolean) => (flag ? "true" : "false"))
  })
)

/**
 * A JSON-valued form field: its JSON text, or nothing at all when it is empty, as an HTML form sends
 * a field left blank (an empty string is no JSON, and would be refused though the form meant none).
 */
const jsonFormField = <S extends Schema.Top>(schema: S) =>
  Schema.optional(Schema.Union([Schema.Literal(""), Schema.fromJsonString(schema)]))

/** An upload's form fields besides the file: a capture's, `metadata` and `supersedes` as JSON text. */
const UploadForm = Schema.Struct({
  file: Multipart.SingleFileSchema,
  source: Schema.optional(Source),
  ...ScopeAndMetadata,
  metadata: jsonFormField(Metadata),
  supersedes: jsonFormField(UpdateFields.supersedes.schema),
  infer_updates: Schema.optional(FormBoolean).annotate({
    description: "`true` or `false`: as a capture's infer_updates (default true)"
  }),
  dedupe: Schema.optional(FormBoolean).annotate({
    description: "`true` or `false`: as a capture's dedupe (default true)"
  }),
  expires_at: LifetimeFields.expires_at,
  ttl: Schema.optional(
    Schema.NumberFromString.check(
      Schema.isInt(),
      Schema.isBetween({ minimum: 1, maximum: longestTtlSeconds })
    )
  ).annotate({ description: "seconds: as a capture's ttl" }),
  immutable: Schema.optional(FormBoolean).annotate({
    description: "`true` or `false`: as a capture's immutable (default false)"
  })
})
const readErrors = [MemoryNotFound, Unavailable]

// Each alias shares its call's whole definition.
const capture = {
  payload: CaptureRequest,
  headers: IdempotencyHeaders,
  success: Envelope(Results.Captured),
  error: captureErrors
}
const search = { payload: SearchRequest, success: Envelope(Results.SearchResults), error: captureErrors }

/** Capture, list, fetch, prove and delete memories. */
export class MemoriesApi extends HttpApiGroup.make("memories")
  .add(
    HttpApiEndpoint.post("process", "/v1/process", capture),
    HttpApiEndpoint.post("create", "/v1/memories", capture),
    HttpApiEndpoint.post("batch", "/v1/batch", {
      payload: BatchRequest,
      headers: IdempotencyHeaders,
      success: Envelope(Results.BatchResult),
      error: captureErrors
    }),
    HttpApiEndpoint.post("upload", "/v1/upload", {
      payload: HttpApiSchema.asMultipart({ maxFileSize: uploadLimitBytes, maxParts: 16 })(UploadForm),
      headers: IdempotencyHeaders,
      success: Envelope(Results.Uploaded),
      error: [InvalidRequest, MemoryNotFound, UnsupportedFile, PayloadTooLarge, Unavailable]
    }).annotate(
      OpenApi.Description,
      "Captures the text of a file (the `file` part, 20 MB at most): PDF, HTML, JSON, CSV, Markdown or plain " +
        "UTF-8 text; an image or audio file gives the text of its metadata, or what it is (format, name, size " +
        "or length) when it carries none, and a PDF without a text layer its page count and title. The bytes " +
        "decide the format. Rules on the file's content that a schema cannot state: a binary format other " +
        "than these is refused with 415, and a text file with no visible character in it with 422. The other " +
        "fields are a capture's: `user_id`, `agent_id`, `session_id`, `metadata` (a JSON object), `supersedes` " +
        "(a JSON array of memory ids), `infer_updates`, `dedupe`, `expires_at`, `ttl` and `immutable`."
    ),
    HttpApiEndpoint.post("query", "/v1/memories/query", search),
    HttpApiEndpoint.post("search", "/v1/search", search),
    HttpApiEndpoint.get("list", "/v1/memories", {
      query: ListQuery,
      success: Envelope(Results.ListPage),
      error: [InvalidRequest, Unavailable]
    })
      // As in bodies: a misspelt field or operator (in `filters` too) is a 422 naming it, never ignored.
      .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
      .annotate(
        OpenApi.Description,
        "The account's memories, newest first, current ones unless `include_superseded`. Narrow them by " +
          "`source`, scope (`user_id`, `agent_id`, `session_id`), `metadata` (a JSON object: each key equal to its " +
          "value, or to any of a list), `after` / `before` (the memory's timestamp) and `filters` (a JSON filter " +
          "expression: AND / OR / NOT over the scope fields, source, timestamp, created_at and metadata keys)."
      ),
    HttpApiEndpoint.delete("erase", "/v1/memories", {
      query: EraseQuery,
      success: Envelope(Results.ErasureReceipt),
      error: [InvalidRequest, Unavailable]
    })
      .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
      .annotate(
        OpenApi.Description,
        "Erases every memory of a scope — an end user's (`user_id`), an agent's (`agent_id`) or a conversation's " +
          "(`session_id`); at least one is required, so the whole account is never erased by accident — narrowed " +
          "by the other fields if given, superseded memories included. Each deletion is a signed entry of the " +
          "account's chain, and one signed receipt names them all. A rule on the fields that a query string's " +
          "schema cannot state: a request naming no scope is refused with 422."
      ),
    HttpApiEndpoint.get("history", "/v1/memories/:id/history", {
      params: id,
      success: Envelope(Results.MemoryHistory),
      error: readErrors
    }).annotate(
      OpenApi.Description,
      "The memory's whole line of versions, oldest first: every memory it superseded or that superseded it, " +
        "through any number of supersessions, itself included."
    ),
    HttpApiEndpoint.patch("update", "/v1/memories/:id", {
      params: id,
      payload: UpdateRequest,
      headers: IdempotencyHeaders,
      success: Envelope(Results.Captured),
      error: captureErrors
    }).annotate(
      OpenApi.Description,
      "Changes a memory's text (`content`), its metadata (replaced whole) or both, by capturing a new version " +
        "in the same scope that supersedes it: the answer is the new version's capture, with `supersedes` naming " +
        "the old one, which stays readable by id and in the history, out of default list, search and ask. " +
        "Nothing is edited in place; both versions are entries of the chain. Rules a schema cannot state: a " +
        "superseded memory is refused with 422 (change the current one), and so is a change that changes nothing, " +
        "and a change of an immutable memory. `expires_at` (null: never) or `ttl` alone moves the memory's expiry in " +
        "place: the same memory, its capture receipt signed again."
    ),
    HttpApiEndpoint.get("scopes", "/v1/scopes", {
      query: ScopesRequest,
      success: Envelope(Results.ScopeList),
      error: [InvalidRequest, Unavailable]
    })
      .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
      .annotate(
        OpenApi.Description,
        "The account's end users (`user_id`), agents (`agent_id`) and conversations (`session_id`) that hold " +
          "current memories, most recently active first: each with how many it holds and the newest one's time. " +
          "Narrow by `kind` and by an id `prefix`."
      ),
    HttpApiEndpoint.get("get", "/v1/memories/:id", {
      params: id,
      success: Results.MemoryRecord,
      error: readErrors
    }),
    HttpApiEndpoint.get("proof", "/v1/memories/:id/proof", {
      params: id,
      success: Envelope(Results.Proof),
      error: readErrors
    }),
    HttpApiEndpoint.delete("forget", "/v1/memories/:id", {
      params: id,
      success: Results.DeletionReceipt,
      error: readErrors
    }),
    HttpApiEndpoint.post("updateMany", "/v1/memories/update", {
      payload: UpdateManyRequest,
      headers: IdempotencyHeaders,
      success: Envelope(Results.UpdateManyResult),
      error: captureErrors
    }).annotate(
      OpenApi.Description,
      "Changes 1 to 100 memories as one unit, each as PATCH /v1/memories/{id} changes one (content, metadata or " +
        "both, by a new version that supersedes it): every new version is stored in one transaction with its " +
        "signed entries, or none is. A change a schema cannot refuse (an unknown id, a superseded or immutable " +
        "memory, a change that changes nothing) refuses the whole request, naming `updates.<i>`."
    ),
    HttpApiEndpoint.post("forgetMany", "/v1/memories/delete", {
      payload: ForgetManyRequest,
      success: Envelope(Results.ErasureReceipt),
      error: [InvalidRequest, MemoryNotFound, Unavailable]
    }).annotate(
      OpenApi.Description,
      "Deletes 1 to 1,000 memories by id as one unit (superseded or expired ones too), with one signed erasure " +
        "receipt naming them; an id that is not one of the account's memories deletes none (404)."
    )
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
