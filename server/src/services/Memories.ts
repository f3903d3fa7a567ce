import {
  type CaptureReceipt,
  canonicalJson,
  Embedder,
  type EmbedderShape,
  FileParser,
  type LedgerError,
  MemoryStore,
  Pipeline,
  type PipelineError,
  type StoreError,
  sha256Hex,
  storableText,
  type Umo
} from "@umo/core"
import { chunkSpans, defaultPlugins } from "@umo/plugins"
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { ServiceUnavailable, Unprocessable, UnsupportedMediaType } from "../api/Errors.js"
import { type CaptureInput, CaptureRequest, parseTimestamp } from "../api/Fields.js"
import { describeIssue } from "../api/SchemaErrors.js"
import type {
  BatchResultItem as BatchResultItemSchema,
  Captured as CapturedSchema,
  Uploaded as UploadedSchema
} from "../api/Schemas.js"

export type { CaptureInput }

/**
 * Maps a store failure: an unreachable database is a 503, and so is a signing key retired by a
 * rotation while this process runs (another replica, restarted with the current key, can serve the
 * retry); anything else is a defect (500).
 */
export const storeFailure = (error: StoreError | LedgerError) =>
  error.reason === "Unavailable"
    ? Effect.fail(new ServiceUnavailable({ detail: "the database is unavailable; retry shortly" }))
    : error.reason === "SigningKeyRetired"
      ? Effect.logError(error.detail).pipe(
          Effect.andThen(
            Effect.fail(
              new ServiceUnavailable({
                detail:
                  "this server's signing key was retired by a key rotation and it must be restarted with the current key; retry shortly"
              })
            )
          )
        )
      : Effect.die(error)

/** Maps a pipeline failure: bad input is the caller's (422); the rest is a defect (500). */
export const pipelineFailure = (error: PipelineError) =>
  error.reason === "InvalidInput"
    ? Effect.fail(new Unprocessable({ detail: error.detail }))
    : Effect.die(error)

/** The content's time, from a timestamp the request schema has already checked. */
const timeOf = (timestamp: string | undefined) =>
  timestamp === undefined ? undefined : parseTimestamp(timestamp)

const decodeItem = Schema.decodeUnknownResult(CaptureRequest)

/** An embedder answering from vectors computed ahead (one batched call), the real one otherwise. */
const prefetching = (embedder: EmbedderShape, cache: Map<string, ReadonlyArray<number>>): EmbedderShape => ({
  model: embedder.model,
  embed: (texts) =>
    texts.every((t) => cache.has(t)) ? Effect.succeed(texts.map((t) => cache.get(t)!)) : embedder.embed(texts)
})

export type Captured = typeof CapturedSchema.Type
export type BatchResultItem = typeof BatchResultItemSchema.Type
export type Uploaded = typeof UploadedSchema.Type

/** A file to capture: its name, declared type and bytes, and the memory's source. */
export interface FileToCapture {
  readonly filename: string
  readonly mediaType: string | undefined
  readonly bytes: Uint8Array
  readonly source: string | undefined
}

const captured = (umo: Umo, { receipt }: CaptureReceipt): Captured => ({
  umo_id: umo.umo_id,
  quality_score: umo.quality_score,
  created_at: umo.created_at,
  content_hash: umo.content_hash,
  receipt
})

/** What identifies a request for its idempotency key: the operation and what it was given. */
const fingerprint = (operation: string, input: unknown) => sha256Hex(canonicalJson({ operation, input }))

/**
 * Captures content into an account: the default pipeline, then the store (with its chain entry).
 * Every capture may carry an idempotency key: the first answer under a key is stored with what it
 * captured, in one transaction, and a repeat of the same request is answered with it again —
 * nothing is captured twice; the same key with another request is refused (422).
 */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const embedder = yield* Embedder
  const files = yield* FileParser
  const pipeline = Pipeline.make(defaultPlugins())
  // Uploaded documents are kept whole up to 1,000,000 characters (embedded in chunks).
  const documentPipeline = Pipeline.make(defaultPlugins({ maxLength: 1_000_000 }))

  /** The answer stored under `key` for this request, failing when the key served another one. */
  const answered = <A>(accountId: string, key: string, print: string) =>
    store.idempotentAnswer(accountId, key).pipe(
      Effect.catch(storeFailure),
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeed(Option.none<A>()),
          onSome: (earlier) =>
            earlier.fingerprint === print
              ? Effect.succeed(Option.some(earlier.response as A))
              : Effect.fail(
                  new Unprocessable({
                    detail:
                      "this Idempotency-Key was used with another request: use a new key for a new request"
                  })
                )
        })
      )
    )

  /**
   * Runs `capture` once per idempotency key: answers what the key stored earlier, or captures,
   * storing `respond`'s answer under the key with the memories (`save`).
   */
  const once = <A, E>(
    accountId: string,
    idempotencyKey: string | undefined,
    print: () => string,
    capture: (
      save: (
        umos: ReadonlyArray<Umo>,
        respond: (receipts: ReadonlyArray<CaptureReceipt>) => A
      ) => Effect.Effect<A, ServiceUnavailable | Unprocessable>
    ) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | ServiceUnavailable | Unprocessable> =>
    Effect.gen(function* () {
      const key = idempotencyKey
      const request = key === undefined ? "" : print()
      if (key !== undefined) {
        const earlier = yield* answered<A>(accountId, key, request)
        if (Option.isSome(earlier)) return earlier.value
      }
      return yield* capture((umos, respond) =>
        store
          .insertMany(
            accountId,
            umos,
            key === undefined ? undefined : { key, fingerprint: request, response: respond }
          )
          .pipe(
            Effect.map(respond),
            Effect.catch((error) =>
              // Another request with this key stored its answer first (a retry racing the original).
              error.reason === "IdempotencyKeyUsed" && key !== undefined
                ? Effect.flatMap(answered<A>(accountId, key, request), (earlier) =>
                    Option.isSome(earlier) ? Effect.succeed(earlier.value) : storeFailure(error)
                  )
                : storeFailure(error)
            )
          )
      )
    })

  const capture = (accountId: string, input: CaptureInput, idempotencyKey?: string) =>
    once<Captured, Unprocessable | ServiceUnavailable>(
      accountId,
      idempotencyKey,
      () =>
        fingerprint("capture", {
          content: input.content,
          source: input.source ?? null,
          timestamp: input.timestamp ?? null
        }),
      (save) =>
        Effect.gen(function* () {
          const umo = yield* pipeline
            .process({
              content: input.content,
              source: input.source ?? null,
              timestamp: timeOf(input.timestamp)
            })
            .pipe(Effect.provideService(Embedder, embedder), Effect.catch(pipelineFailure))
          return yield* save([umo], ([receipt]) => captured(umo, receipt!))
        })
    )

  /**
   * Captures up to 100 items as one unit: each result in input order, an invalid item reported in
   * its result and the others stored together in one transaction — or, when the database fails,
   * none of them (a 503, safe to retry). All chunks of all items are embedded in one model call.
   */
  const captureMany = (accountId: string, items: ReadonlyArray<unknown>, idempotencyKey?: string) =>
    once<{ readonly results: ReadonlyArray<BatchResultItem> }, Unprocessable | ServiceUnavailable>(
      accountId,
      idempotencyKey,
      () => fingerprint("batch", items),
      (save) =>
        Effect.gen(function* () {
          const checked = items.map((item) =>
            Result.mapBoth(decodeItem(item), {
              onFailure: (e) => describeIssue(e.issue, "invalid item: "),
              onSuccess: (input) => ({ ...input, timestamp: timeOf(input.timestamp) })
            })
          )
          const valid = checked.flatMap((r, index) =>
            Result.isSuccess(r) ? [{ index, input: r.success }] : []
          )
          const cache = new Map<string, ReadonlyArray<number>>()
          const processed = yield* pipeline
            .processMany(
              valid.map(({ input }) => ({
                content: input.content,
                source: input.source ?? null,
                timestamp: input.timestamp
              })),
              {
                beforeEmbed: (drafts) => {
                  const texts = [
                    ...new Set(
                      drafts.flatMap((d) =>
                        chunkSpans(d.content, d.sentences, embedder.model.maxChunkChars).map((s) =>
                          d.content.slice(s.start, s.end)
                        )
                      )
                    )
                  ]
                  // A failed prefetch is not fatal: each item then embeds on its own and reports its error.
                  return embedder.embed(texts).pipe(
                    Effect.flatMap((vectors) =>
                      Effect.sync(() => {
                        for (const [i, text] of texts.entries()) cache.set(text, vectors[i]!)
                      })
                    ),
                    Effect.ignore
                  )
                }
              }
            )
            .pipe(Effect.provideService(Embedder, prefetching(embedder, cache)))
          // Each item: its UMO, or why it was refused (invalid, or content the pipeline refused).
          const outcomes: Array<Result.Result<Umo, string>> = []
          for (const [index, check] of checked.entries()) {
            if (Result.isFailure(check)) {
              outcomes.push(Result.fail(check.failure))
              continue
            }
            const outcome = processed[valid.findIndex((v) => v.index === index)]!
            if (Result.isSuccess(outcome)) outcomes.push(Result.succeed(outcome.success))
            else if (outcome.failure.reason === "InvalidInput")
              outcomes.push(Result.fail(outcome.failure.detail))
            else return yield* Effect.die(outcome.failure)
          }
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
                const { umo_id, quality_score, content_hash, receipt } = captured(
                  outcome.success,
                  byId.get(outcome.success.umo_id)!
                )
                return { index, success: true, umo_id, quality_score, content_hash, receipt }
              })
            }
          })
        })
    )

  /**
   * Captures the text of a file (the bytes themselves are never stored). The file's text and name
   * enter here, so they are made storable here (see `storableText`).
   */
  const captureFile = (accountId: string, file: FileToCapture, idempotencyKey?: string) =>
    once<Uploaded, Unprocessable | UnsupportedMediaType | ServiceUnavailable>(
      accountId,
      idempotencyKey,
      () =>
        fingerprint("upload", {
          filename: file.filename,
          mediaType: file.mediaType ?? null,
          source: file.source ?? null,
          bytes: sha256Hex(file.bytes)
        }),
      (save) =>
        Effect.gen(function* () {
          const parsed = yield* files
            .parse({ filename: file.filename, mediaType: file.mediaType, bytes: file.bytes })
            .pipe(
              Effect.catch((e) =>
                e.reason === "UnsupportedType"
                  ? Effect.fail(new UnsupportedMediaType({ detail: e.detail }))
                  : Effect.fail(new Unprocessable({ detail: e.detail }))
              )
            )
          const umo = yield* documentPipeline
            .process({
              content: storableText(parsed.text),
              source: storableText(file.source ?? `upload:${file.filename}`)
            })
            .pipe(Effect.provideService(Embedder, embedder), Effect.catch(pipelineFailure))
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

  const get = (accountId: string, umoId: string) =>
    store.get(accountId, umoId).pipe(Effect.catch(storeFailure))
  return { pipeline, embedder, capture, captureMany, captureFile, get }
})

export class Memories extends Context.Service<Memories, Effect.Success<typeof make>>()(
  "@umo/server/Memories"
) {}

export const layer = Layer.effect(Memories, make)
