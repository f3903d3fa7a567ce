import {
  Embedder,
  MemoryStore,
  Pipeline,
  type PipelineError,
  type StoredMemory,
  type StoreError
} from "@umo/core"
import { defaultPlugins } from "@umo/plugins"
import { Context, Effect, Layer } from "effect"
import { ServiceUnavailable, Unprocessable } from "../api/Errors.js"

export interface CaptureInput {
  readonly content: string
  readonly source?: string | null | undefined
  readonly timestamp?: string | undefined
}

/** Maps a store failure: an unreachable database is a 503; anything else is a defect (500). */
export const storeFailure = (error: StoreError) =>
  error.reason === "Unavailable"
    ? Effect.fail(new ServiceUnavailable({ detail: "the database is unavailable; retry shortly" }))
    : Effect.die(error)

/** Maps a pipeline failure: bad input is the caller's (422, naming the stage); the rest is a 500. */
export const pipelineFailure = (error: PipelineError) =>
  error.reason === "InvalidInput"
    ? Effect.fail(new Unprocessable({ detail: error.detail }))
    : Effect.die(error)

const parseTimestamp = (value: string | undefined) => {
  if (value === undefined) return Effect.succeed(undefined)
  const date = new Date(value)
  return Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)
    ? Effect.fail(new Unprocessable({ detail: "timestamp must be an ISO 8601 date-time" }))
    : Effect.succeed(date)
}

/** Captures content into an account: the default pipeline, then the store (with its chain entry). */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const embedder = yield* Embedder
  const pipeline = Pipeline.make(defaultPlugins())
  const capture = (accountId: string, input: CaptureInput) =>
    Effect.gen(function* () {
      const timestamp = yield* parseTimestamp(input.timestamp)
      const umo = yield* pipeline
        .process({ content: input.content, source: input.source ?? null, timestamp })
        .pipe(Effect.provideService(Embedder, embedder), Effect.catch(pipelineFailure))
      const { receipt } = yield* store.insert(accountId, umo).pipe(Effect.catch(storeFailure))
      return { umo, receipt }
    })
  const get = (accountId: string, umoId: string) =>
    store.get(accountId, umoId).pipe(Effect.catch(storeFailure))
  return { pipeline, capture, get }
})

export class Memories extends Context.Service<Memories, Effect.Success<typeof make>>()(
  "@umo/server/Memories"
) {}

export const layer = Layer.effect(Memories, make)

export type { StoredMemory }
