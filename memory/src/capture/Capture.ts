import {
  type CaptureReceipt,
  Embedder,
  FileParser,
  type Pipeline,
  type PipelineError,
  sha256Hex,
  storableText,
  type Umo
} from "@umo/core"
import { Effect, Result, Schema } from "effect"
import { decodeRequest, describeIssue, InvalidRequest, pipelineFailure, UnsupportedFile } from "../Errors.js"
import { IdempotencyKey, parseTimestamp, Source, uploadLimitBytes } from "../Fields.js"
import type { CaptureOptions, FileToCapture } from "../Memory.js"
import { BatchRequest, CaptureRequest } from "../Requests.js"
import type { BatchResultItem, Captured, Uploaded } from "../Results.js"
import * as Idempotency from "./Idempotency.js"

const captured = (umo: Umo, { receipt }: CaptureReceipt): Captured => ({
  umo_id: umo.umo_id,
  quality_score: umo.quality_score,
  created_at: umo.created_at,
  content_hash: umo.content_hash,
  receipt
})

const decodeCapture = decodeRequest(CaptureRequest, "request body")
const decodeBatch = decodeRequest(BatchRequest, "request body")
const decodeKey = decodeRequest(
  Schema.Struct({ "idempotency-key": Schema.optional(IdempotencyKey) }),
  "headers"
)
const decodeSource = decodeRequest(Schema.Struct({ source: Schema.optional(Source) }), "request body")
const decodeItem = Schema.decodeUnknownResult(CaptureRequest)

/** The pipeline's input from a checked capture request (its timestamp is known to parse). */
const pipelineInput = (request: CaptureRequest) => ({
  content: request.content,
  source: request.source ?? null,
  timestamp: request.timestamp === undefined ? undefined : parseTimestamp(request.timestamp)
})

/**
 * The three captures: one text, a batch, a file. Each runs the pipeline, then stores what it made
 * through `Idempotency.once` (one transaction, the answer kept under the idempotency key).
 */
export const make = (pipeline: Pipeline.Pipeline<Embedder>) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    const files = yield* FileParser
    const { once } = yield* Idempotency.make

    const run = (input: Parameters<typeof pipeline.process>[0]) =>
      pipeline.process(input).pipe(Effect.provideService(Embedder, embedder))

    const keyOf = (options: CaptureOptions | undefined) =>
      Effect.map(
        decodeKey({ "idempotency-key": options?.idempotencyKey }),
        (headers) => headers["idempotency-key"]
      )

    const capture = (accountId: string, input: unknown, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const request = yield* decodeCapture(input)
        const key = yield* keyOf(options)
        return yield* once<Captured, never>(
          accountId,
          key,
          () =>
            Idempotency.fingerprint("capture", {
              content: request.content,
              source: request.source ?? null,
              timestamp: request.timestamp ?? null
            }),
          (save) =>
            Effect.gen(function* () {
              const umo = yield* run(pipelineInput(request)).pipe(Effect.catch(pipelineFailure))
              return yield* save([umo], ([receipt]) => captured(umo, receipt!))
            })
        )
      })

    /**
     * Up to 100 items as one unit: each result in input order, an invalid item reported in its
     * result and the others stored together in one transaction — or, when the database fails, none
     * of them (Unavailable, safe to retry). The items run concurrently, so the Embedder answers all
     * their chunks together, in as few model calls as its batch size allows.
     */
    const batch = (accountId: string, input: unknown, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const { items } = yield* decodeBatch(input)
        const key = yield* keyOf(options)
        return yield* once<{ readonly results: ReadonlyArray<BatchResultItem> }, never>(
          accountId,
          key,
          () => Idempotency.fingerprint("batch", items),
          (save) =>
            Effect.gen(function* () {
              // Each item: its UMO, or why it was refused (invalid, or content the pipeline refused).
              const outcomes = yield* Effect.forEach(
                items,
                (item): Effect.Effect<Result.Result<Umo, string>> => {
                  const checked = decodeItem(item)
                  if (Result.isFailure(checked))
                    return Effect.succeed(Result.fail(describeIssue(checked.failure.issue, "invalid item: ")))
                  return run(pipelineInput(checked.success)).pipe(
                    Effect.map(Result.succeed),
                    Effect.catch((error: PipelineError) =>
                      error.reason === "InvalidInput"
                        ? Effect.succeed(Result.fail(error.detail))
                        : Effect.die(error)
                    )
                  )
                },
                { concurrency: "unbounded" }
              )
              const umos = outcomes.flatMap((o) => (Result.isSuccess(o) ? [o.success] : []))
              return yield* save(umos, (receipts) => {
                const byId = new Map(receipts.map((r) => [r.entry.umo_id, r] as const))
                return {
                  results: outcomes.map((outcome, index): BatchResultItem => {
                    if (Result.isFailure(outcome))
                      return {
                        index,
                        success: false,
                        umo_id: null,
                        error: { status: 422, detail: outcome.failure }
                      }
                    const { created_at: _, ...stored } = captured(
                      outcome.success,
                      byId.get(outcome.success.umo_id)!
                    )
                    return { index, success: true, ...stored }
                  })
                }
              })
            })
        )
      })

    /**
     * Captures the text of a file (the bytes themselves are never stored). The file's text and name
     * enter here, so they are made storable here (see `storableText`).
     */
    const upload = (accountId: string, file: FileToCapture, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const { source } = yield* decodeSource({ source: file.source })
        const key = yield* keyOf(options)
        if (file.bytes.length > uploadLimitBytes)
          return yield* new InvalidRequest({ detail: "the file is over the 20 MB upload limit" })
        return yield* once<Uploaded, UnsupportedFile>(
          accountId,
          key,
          () =>
            Idempotency.fingerprint("upload", {
              filename: file.filename,
              mediaType: file.mediaType ?? null,
              source: source ?? null,
              bytes: sha256Hex(file.bytes)
            }),
          (save) =>
            Effect.gen(function* () {
              const parsed = yield* files
                .parse({ filename: file.filename, mediaType: file.mediaType, bytes: file.bytes })
                .pipe(
                  Effect.catch((e) =>
                    e.reason === "UnsupportedType"
                      ? Effect.fail(new UnsupportedFile({ detail: e.detail }))
                      : Effect.fail(new InvalidRequest({ detail: e.detail }))
                  )
                )
              const umo = yield* run({
                content: storableText(parsed.text),
                source: storableText(source ?? `upload:${file.filename}`)
              }).pipe(Effect.catch(pipelineFailure))
              return yield* save(
                [umo],
                ([receipt]): Uploaded => ({
                  ...captured(umo, receipt!),
                  summary: umo.summary,
                  format: parsed.format,
                  characters: umo.content.length
                })
              )
            })
        )
      })

    return { capture, batch, upload }
  })
