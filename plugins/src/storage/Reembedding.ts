import { Embedder, type EmbedderShape, Ledger, StoreError } from "@umo/core"
import { Config, Context, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { chunkSpans } from "../embedders/Embed.js"
import { makeSwitchingEmbedder, type SwitchingEmbedder } from "../embedders/SwitchingEmbedder.js"
import { SearchIndex } from "../search/IndexedMemorySearch.js"
import { keepVectorGraph, readPin, settleVectorGraph } from "./EmbedderPin.js"
import { storeError } from "./SqlFailure.js"
import { makeReembeddingStore, type PendingMemory, type StagedMemory } from "./SqlReembedding.js"

/** Where a re-embedding stands, for `/health`. */
export interface ReembeddingStatus {
  /** The model searches answer with until the switch, and the one the memories are embedded with now. */
  readonly from: string
  readonly to: string
  /** `embedding`: batches staged in the background; `switched`: done; `failed`: retried shortly (see `detail`). */
  readonly state: "embedding" | "switching" | "switched" | "failed"
  /** Memories with the new model's vectors staged, of all (both as of the last batch). */
  readonly staged: number
  readonly total: number
  readonly detail: string | null
}

/** The re-embedding this process runs, if any: its status. */
export class Reembedder extends Context.Service<
  Reembedder,
  { readonly status: Effect.Effect<ReembeddingStatus | null> }
>()("@umo/plugins/Reembedder") {}

/** What the embedder's layer found at start: a store pinned to another model than the configured one, to re-embed. */
export class ReembeddingPlan extends Context.Service<
  ReembeddingPlan,
  { readonly switching: SwitchingEmbedder; readonly target: EmbedderShape } | null
>()("@umo/plugins/ReembeddingPlan") {}

/**
 * The Embedder of a store: `configured`, unless the store is pinned to another model and
 * `UMO_REEMBED=on` (or `reembed`) asks for a re-embedding. Then it is the pinned model's
 * (`pinnedEmbedder` builds it from the id the store recorded) until the switch, and `layer` re-embeds
 * every memory with `configured` in the background. Without either, a mismatch is refused at start
 * (`pinEmbedder`), as before.
 */
export const embedderLayer = <E1, E2, R2>(
  configured: Layer.Layer<Embedder, E1>,
  pinnedEmbedder?: (id: string) => Layer.Layer<Embedder, E2, R2>,
  reembed?: boolean
) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const target = Context.get(yield* Layer.build(configured), Embedder)
      const asked = reembed ?? (yield* Config.Boolean("UMO_REEMBED").pipe(Config.withDefault(false)))
      const none = Context.make(Embedder, target).pipe(Context.add(ReembeddingPlan, null))
      if (!asked || pinnedEmbedder === undefined) return none
      const pin = yield* readPin(yield* SqlClient.SqlClient).pipe(
        Effect.mapError(storeError("could not read the store's embedder"))
      )
      if (pin.id === "" || pin.id === target.model.id) return none
      const current = Context.get(yield* Layer.build(pinnedEmbedder(pin.id)), Embedder)
      if (current.model.dimensions !== pin.dimensions)
        return yield* new StoreError({
          reason: "EmbedderMismatch",
          detail: `this store's ${pin.id} vectors have ${pin.dimensions} dimensions, but that model gives ${current.model.dimensions}`
        })
      const switching = makeSwitchingEmbedder(current)
      return Context.make(Embedder, switching.embedder).pipe(
        Context.add(ReembeddingPlan, { switching, target })
      )
    })
  )

/** Memories embedded and staged per batch, and the most a switch embeds itself (captured since the last batch). */
const batchSize = 64

/** A memory's spans for the new model: its chunks now, merged or cut to the new model's length. */
const embedWith = (target: EmbedderShape, memories: ReadonlyArray<PendingMemory>) =>
  Effect.gen(function* () {
    const spans = memories.map((m) => chunkSpans(m.content, m.spans, target.model.maxChunkChars))
    const vectors = yield* target
      .embed(memories.flatMap((m, i) => spans[i]!.map((s) => m.content.slice(s.start, s.end))))
      .pipe(
        Effect.mapError(
          (e) => new StoreError({ reason: "Failed", detail: `re-embedding: ${e.message}`, cause: e })
        )
      )
    let next = 0
    return memories.map(
      (memory, i): StagedMemory => ({
        memory,
        chunks: spans[i]!.map((s) => ({ start: s.start, end: s.end, vector: vectors[next++]! }))
      })
    )
  })

/**
 * Re-embeds the store, when `embedderLayer` found it should, in the background: batches of
 * memories embedded with the new model and staged (searches keep answering from the old vectors
 * meanwhile), resumed after a restart from what is staged; then the switch (`SqlReembedding`),
 * after which this process embeds with the new model and its search index loads the new vectors.
 * A failure is logged and the work taken up again a minute later.
 */
export const layer = Layer.effect(
  Reembedder,
  Effect.gen(function* () {
    const plan = yield* ReembeddingPlan
    if (plan === null) return Reembedder.of({ status: Effect.succeed(null) })
    const { switching, target } = plan
    const store = makeReembeddingStore(yield* SqlClient.SqlClient, yield* Ledger)
    const index = yield* SearchIndex
    const from = switching.embedder.model
    const inProcessIndex = yield* Config.Boolean("UMO_SEARCH_INDEX").pipe(Config.withDefault(true))
    let status: ReembeddingStatus = {
      from: from.id,
      to: target.model.id,
      state: "embedding",
      staged: 0,
      total: 0,
      detail: null
    }
    const report = (change: Partial<ReembeddingStatus>) => {
      status = { ...status, ...change }
    }

    const run = Effect.gen(function* () {
      yield* store.begin(target.model.id)
      report({ state: "embedding", detail: null, ...(yield* store.progress) })
      yield* Effect.logInfo(
        `re-embedding: ${status.total} memories from ${from.id} to ${target.model.id}, ${status.staged} staged already`
      )
      let cursor: PendingMemory | null = null
      let reported = Date.now()
      for (;;) {
        const batch: ReadonlyArray<PendingMemory> = yield* store.pending(cursor, batchSize)
        if (batch.length > 0) {
          yield* store.stage(target.model, yield* embedWith(target, batch))
          cursor = batch.at(-1)!
          report({ staged: status.staged + batch.length })
          if (Date.now() - reported > 10_000) {
            reported = Date.now()
            report(yield* store.progress)
            yield* Effect.logInfo(`re-embedding: ${status.staged} of ${status.total} memories staged`)
          }
          continue
        }
        report({ state: "switching" })
        // The old vector graph cannot take the new vectors (nor would it serve them); the new
        // one is built after the switch, without holding up writes.
        yield* keepVectorGraph(from.dimensions, false)
        const switched = yield* store.switchTo(target.model, (left) => embedWith(target, left), batchSize)
        if (!switched) {
          // More were captured since the last batch than a switch embeds while captures wait.
          report({ state: "embedding" })
          cursor = null
          continue
        }
        switching.switchTo(target)
        yield* index.reembedded(target.model.dimensions)
        const { total } = yield* store.progress
        report({ state: "switched", staged: total, total })
        yield* Effect.logInfo(`re-embedding: switched to ${target.model.id}`)
        // Done whatever becomes of the graph: without it, searches that read the database scan
        // exactly until the next start builds it.
        return yield* settleVectorGraph(target.model.dimensions, inProcessIndex, { concurrently: true }).pipe(
          Effect.catch((error) =>
            Effect.logWarning(
              "re-embedding: the new model's vector graph could not be built; the next start builds it",
              error
            )
          )
        )
      }
    })
    yield* Effect.forkScoped(
      run.pipe(
        Effect.tapError((error) =>
          Effect.andThen(
            Effect.sync(() => report({ state: "failed", detail: error.message })),
            Effect.logError("re-embedding failed; it goes on in a minute from what is staged", error)
          )
        ),
        Effect.retry(Schedule.spaced("1 minute"))
      )
    )
    return Reembedder.of({ status: Effect.sync(() => status) })
  })
)
