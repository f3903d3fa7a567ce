import {
  Embedder,
  type EmbedderShape,
  type LedgerError,
  MemoryStore,
  Pipeline,
  type PipelineError,
  type StoreError,
  type Umo
} from "@umo/core"
import { chunkSpans, defaultPlugins } from "@umo/plugins"
import { Context, Effect, Layer, Result, Schema } from "effect"
import { ServiceUnavailable, Unprocessable } from "../api/Errors.js"
import { CaptureRequest } from "../api/Schemas.js"

export type CaptureInput = typeof CaptureRequest.Type

/** A stored capture: the UMO and the compact JWS of its chain entry. */
export interface Saved {
  readonly umo: Umo
  readonly receipt: string
}

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

const toDate = (value: string | undefined) => {
  if (value === undefined) return Result.succeed(undefined)
  const date = new Date(value)
  return Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)
    ? Result.fail(new Unprocessable({ detail: "timestamp must be an ISO 8601 date-time" }))
    : Result.succeed(date)
}

const decodeItem = Schema.decodeUnknownResult(CaptureRequest)

/** An embedder answering from vectors computed ahead (one batched call), the real one otherwise. */
const prefetching = (embedder: EmbedderShape, cache: Map<string, ReadonlyArray<number>>): EmbedderShape => ({
  model: embedder.model,
  embed: (texts) =>
    texts.every((t) => cache.has(t)) ? Effect.succeed(texts.map((t) => cache.get(t)!)) : embedder.embed(texts)
})

/** Captures content into an account: the default pipeline, then the store (with its chain entry). */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const embedder = yield* Embedder
  const pipeline = Pipeline.make(defaultPlugins())
  // Uploaded documents are kept whole up to 1,000,000 characters (embedded in chunks).
  const documentPipeline = Pipeline.make(defaultPlugins({ maxLength: 1_000_000 }))

  const save = (accountId: string, umo: Umo): Effect.Effect<Saved, ServiceUnavailable> =>
    Effect.map(store.insert(accountId, umo).pipe(Effect.catch(storeFailure)), ({ receipt }) => ({
      umo,
      receipt
    }))

  const capture = (accountId: string, input: CaptureInput) =>
    Effect.gen(function* () {
      const timestamp = yield* Effect.fromResult(toDate(input.timestamp))
      const umo = yield* pipeline
        .process({ content: input.content, source: input.source ?? null, timestamp })
        .pipe(Effect.provideService(Embedder, embedder), Effect.catch(pipelineFailure))
      return yield* save(accountId, umo)
    })

  /**
   * Captures up to 100 items, each result in input order: an invalid item is reported and the
   * others are still captured. All chunks of all items are embedded in one batched model call.
   */
  const captureMany = (
    accountId: string,
    items: ReadonlyArray<unknown>
  ): Effect.Effect<ReadonlyArray<Result.Result<Saved, Unprocessable | ServiceUnavailable>>> =>
    Effect.gen(function* () {
      const checked = items.map((item) =>
        Result.flatMap(
          Result.mapError(
            decodeItem(item),
            (e) => new Unprocessable({ detail: `invalid item: ${e.message}` })
          ),
          (input) => Result.map(toDate(input.timestamp), (timestamp) => ({ ...input, timestamp }))
        )
      )
      const valid = checked.flatMap((r, index) => (Result.isSuccess(r) ? [{ index, input: r.success }] : []))
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
      const outcomes = new Map(valid.map(({ index }, i) => [index, processed[i]!] as const))
      return yield* Effect.forEach(checked, (check, index) => {
        if (Result.isFailure(check)) return Effect.succeed(Result.fail(check.failure))
        const outcome = outcomes.get(index)!
        return Result.isFailure(outcome)
          ? Effect.result(pipelineFailure(outcome.failure))
          : Effect.result(save(accountId, outcome.success))
      })
    })

  /** Captures the text of an uploaded file (the bytes themselves are never stored). */
  const captureDocument = (accountId: string, text: string, source: string) =>
    Effect.gen(function* () {
      const umo = yield* documentPipeline
        .process({ content: text, source })
        .pipe(Effect.provideService(Embedder, embedder), Effect.catch(pipelineFailure))
      return yield* save(accountId, umo)
    })

  const get = (accountId: string, umoId: string) =>
    store.get(accountId, umoId).pipe(Effect.catch(storeFailure))
  return { pipeline, embedder, capture, captureMany, captureDocument, get }
})

export class Memories extends Context.Service<Memories, Effect.Success<typeof make>>()(
  "@umo/server/Memories"
) {}

export const layer = Layer.effect(Memories, make)
