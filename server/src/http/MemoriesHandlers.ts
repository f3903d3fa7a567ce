import { readFile } from "node:fs/promises"
import { type CaptureRequest, InvalidRequest, Memory, type SearchRequest } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type IdempotencyHeaders, idempotencyKeyOf } from "../api/Fields.js"
import { UmoApi } from "../api/UmoApi.js"
import { envelope } from "./RequestContext.js"

/** The `Idempotency-Key` of a capture request, as the service takes it. */
const keyOf = (headers: IdempotencyHeaders) => ({ idempotencyKey: idempotencyKeyOf(headers) })

export const MemoriesHandlers = HttpApiBuilder.group(UmoApi, "memories", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory
    const capture = ({ payload, headers }: { payload: CaptureRequest; headers: IdempotencyHeaders }) =>
      Effect.flatMap(memory.capture(payload, keyOf(headers)), envelope)
    const search = ({ payload }: { payload: SearchRequest }) =>
      Effect.flatMap(memory.search(payload), envelope)

    return handlers
      .handle("process", capture)
      .handle("create", capture)
      .handle("batch", ({ payload, headers }) =>
        Effect.flatMap(memory.batch(payload, keyOf(headers)), envelope)
      )
      .handle("upload", ({ payload, headers }) =>
        Effect.gen(function* () {
          const file = payload.file
          // The multipart parser has put the part in a temporary file; it is read, parsed and dropped.
          const bytes = yield* Effect.tryPromise({
            try: () => readFile(file.path),
            catch: () => new InvalidRequest({ detail: "the uploaded file could not be read" })
          })
          const { file: _file, metadata, supersedes, ...fields } = payload
          const uploaded = yield* memory.upload(
            {
              filename: file.name,
              mediaType: file.contentType,
              bytes,
              ...fields,
              // A field left blank says nothing (see `jsonFormField`).
              ...(metadata === "" || metadata === undefined ? {} : { metadata }),
              ...(supersedes === "" || supersedes === undefined ? {} : { supersedes })
            },
            keyOf(headers)
          )
          return yield* envelope(uploaded)
        })
      )
      .handle("query", search)
      .handle("search", search)
      .handle("list", ({ query }) => Effect.flatMap(memory.list(query), envelope))
      .handle("erase", ({ query }) => Effect.flatMap(memory.erase(query), envelope))
      .handle("history", ({ params }) => Effect.flatMap(memory.history(params.id), envelope))
      .handle("update", ({ params, payload, headers }) =>
        Effect.flatMap(memory.update(params.id, payload, keyOf(headers)), envelope)
      )
      .handle("scopes", ({ query }) => Effect.flatMap(memory.scopes(query), envelope))
      .handle("get", ({ params }) => memory.get(params.id))
      .handle("proof", ({ params }) => Effect.flatMap(memory.proof(params.id), envelope))
      .handle("forget", ({ params }) => memory.forget(params.id))
      .handle("updateMany", ({ payload, headers }) =>
        Effect.flatMap(memory.updateMany(payload, keyOf(headers)), envelope)
      )
      .handle("forgetMany", ({ payload }) => Effect.flatMap(memory.forgetMany(payload), envelope))
  })
)
