import { Embedder, type EmbedderShape, Ledger, StoreError } from "@umo/core"
import { Cause, Config, Context, Duration, Effect, Layer, Schedule, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { chunkSpans } from "../embedders/Embed.js"
import { makeSwitchingEmbedder, type SwitchingEmbedder } from "../embedders/SwitchingEmbedder.js"
import { SearchIndex } from "../search/IndexedMemorySearch.js"
import { isPglite, keepVectorGraph, type Pin, readPin, settleVectorGraph } from "./EmbedderPin.js"
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

/** The re-embedding this process runs or followed, if any, and the check that follows its store's pin. */
export class Reembedder extends Context.Service<
  Reembedder,
  {
    readonly status: Effect.Effect<ReembeddingStatus | null>
    /**
     * Reads the model the store is pinned to and, when another process's re-embedding moved it,
     * switches this process's embedder and search index to it (`UMO_EMBEDDER_FOLLOW_SECONDS`
     * apart, and at once when a capture finds the store moved). Fails when the model cannot be
     * loaded here.
     */
    readonly follow: Effect.Effect<void, StoreError>
  }
>()("@umo/plugins/Reembedder") {}

/**
 * What the embedder's layer found at start: the embedder it provides, which can be switched; the
 * model to re-embed the store with, when this process re-embeds it; and how to load the model of
 * another id the store may be pinned to later.
 */
export class ReembeddingPlan extends Context.Service<
  ReembeddingPlan,
  {
    readonly switching: SwitchingEmbedder
    readonly target: EmbedderShape | null
    readonly load: (pin: Pin) => Effect.Effect<EmbedderShape, StoreError>
  } | null
>()("@umo/plugins/ReembeddingPlan") {}

/** How often a process that does not re-embed reads its store's pin (`follow`). */
const followSeconds = Config.Number("UMO_EMBEDDER_FOLLOW_SECONDS").pipe(Config.withDefault(5))

/**
 * The Embedder of a store: `configured`, unless the store is pinned to another model and
 * `UMO_REEMBED=on` (or `reembed`) asks for a re-embedding. Then it is the pinned model's
 * (`pinnedEmbedder` builds it from the id the store recorded) until the switch, and `layer` re-embeds
 * every memory with `configured` in the background. Without either, a mismatch is refused at start
 * (`pinEmbedder`), as before. With `pinnedEmbedder`, the embedder can be switched later too: to the
 * model another process's re-embedding moves the store to (`Reembedder.follow`).
 */
export const embedderLayer = <E1, E2, R2>(
  configured: Layer.Layer<Embedder, E1>,
  pinnedEmbedder?: (id: string) => Layer.Layer<Embedder, E2, R2>,
  reembed?: boolean
) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const target = Context.get(yield* Layer.build(configured), Embedder)
      if (pinnedEmbedder === undefined)
        return Context.make(Embedder, target).pipe(Context.add(ReembeddingPlan, null))
      const scope = yield* Effect.scope
      const context = yield* Effect.context<R2>()
      // Loaded for the rest of the process: its thread and model live as long as the stack.
      const load = (pin: Pin) =>
        Effect.suspend(() => Layer.buildWithScope(pinnedEmbedder(pin.id), scope)).pipe(
          Effect.provideContext(context),
          Effect.map(Context.get(Embedder)),
          Effect.catchCause((cause) => {
            const error = Cause.squash(cause)
            return Effect.fail(
              new StoreError({
                reason: "EmbedderMismatch",
                detail: `this store's vectors are ${pin.id}'s, which could not be loaded here: ${error instanceof Error ? error.message : String(error)}`,
                cause: error
              })
            )
          }),
          Effect.filterOrFail(
            (loaded) => loaded.model.dimensions === pin.dimensions,
            (loaded) =>
              new StoreError({
                reason: "EmbedderMismatch",
                detail: `this store's ${pin.id} vectors have ${pin.dimensions} dimensions, but that model gives ${loaded.model.dimensions}`
              })
          )
        )
      const asked = reembed ?? (yield* Config.Boolean("UMO_REEMBED").pipe(Config.withDefault(false)))
      const pin = asked
        ? yield* readPin(yield* SqlClient.SqlClient).pipe(
            Effect.mapError(storeError("could not read the store's embedder"))
          )
        : undefined
      if (pin === undefined || pin.id === "" || pin.id === target.model.id) {
        const switching = makeSwitchingEmbedder(target)
        return Context.make(Embedder, switching.embedder).pipe(
          Context.add(ReembeddingPlan, { switching, target: null, load })
        )
      }
      const switching = makeSwitchingEmbedder(yield* load(pin))
      return Context.make(Embedder, switching.embedder).pipe(
        Context.add(ReembeddingPlan, { switching, target, load })
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
    if (plan === null) return Reembedder.of({ status: Effect.succeed(null), follow: Effect.void })
    const { switching, target } = plan
    const sql = yield* SqlClient.SqlClient
    const store = makeReembeddingStore(sql, yield* Ledger)
    const index = yield* SearchIndex
    const from = switching.embedder.model
    const inProcessIndex = yield* Config.Boolean("UMO_SEARCH_INDEX").pipe(Config.withDefault(true))
    let status: ReembeddingStatus | null =
      target === null
        ? null
        : { from: from.id, to: target.model.id, state: "embedding", staged: 0, total: 0, detail: null }
    const report = (change: Partial<ReembeddingStatus>) => {
      if (status !== null) status = { ...status, ...change }
    }

    /**
     * The process answers with `next` from now on: its embedder, and its index's vectors. The
     * status says so in the same step as the embedder (`switched`): a caller that sees the new
     * model sees the switch, before the index has taken the new vectors up.
     */
    const switchProcessTo = (next: EmbedderShape, switched: ReembeddingStatus) =>
      Effect.andThen(
        Effect.sync(() => {
          switching.switchTo(next)
          status = switched
        }),
        index.reembedded(next.model.dimensions)
      )

    // One check at a time: the periodic one and those of captures that found the store moved.
    const checking = yield* Semaphore.make(1)
    const follow = checking.withPermits(1)(
      Effect.gen(function* () {
        const pin = yield* readPin(sql).pipe(
          Effect.mapError(storeError("could not read the store's embedder"))
        )
        const was = switching.embedder.model
        if (pin.id === "" || pin.id === was.id) return
        const next =
          target !== null && pin.id === target.model.id
            ? target
            : yield* plan.load(pin).pipe(
                Effect.tapError((error) =>
                  Effect.sync(() => {
                    status = {
                      from: was.id,
                      to: pin.id,
                      state: "failed",
                      staged: 0,
                      total: 0,
                      detail: error.detail
                    }
                  })
                )
              )
        const { total } = yield* store.progress
        yield* switchProcessTo(next, {
          from: was.id,
          to: pin.id,
          state: "switched",
          staged: total,
          total,
          detail: null
        })
        yield* Effect.logInfo(`the store was re-embedded with ${pin.id} by another process: this one follows`)
      })
    )
    let lastFailure = ""
    // PGlite is this process's alone: no other process can move its pin.
    const shared = !(yield* isPglite(sql).pipe(Effect.orElseSucceed(() => false)))
    if (shared)
      yield* Effect.forkScoped(
        follow.pipe(
          Effect.tapError((error) =>
            error.detail === lastFailure
              ? Effect.void
              : Effect.andThen(
                  Effect.sync(() => (lastFailure = error.detail)),
                  Effect.logError("could not follow the store's embedding model; tried again shortly", error)
                )
          ),
          Effect.ignore,
          Effect.repeat(Schedule.spaced(Duration.seconds(yield* followSeconds)))
        )
      )
    if (target === null) return Reembedder.of({ status: Effect.sync(() => status), follow })

    const run = Effect.gen(function* () {
      yield* store.begin(target.model.id)
      report({ state: "embedding", detail: null, ...(yield* store.progress) })
      yield* Effect.logInfo(
        `re-embedding: ${status?.total} memories from ${from.id} to ${target.model.id}, ${status?.staged} staged already`
      )
      let cursor: PendingMemory | null = null
      let reported = Date.now()
      for (;;) {
        const batch: ReadonlyArray<PendingMemory> = yield* store.pending(cursor, batchSize)
        if (batch.length > 0) {
          yield* store.stage(target.model, yield* embedWith(target, batch))
          cursor = batch.at(-1)!
          report({ staged: (status?.staged ?? 0) + batch.length })
          if (Date.now() - reported > 10_000) {
            reported = Date.now()
            report(yield* store.progress)
            yield* Effect.logInfo(`re-embedding: ${status?.staged} of ${status?.total} memories staged`)
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
        const { total } = yield* store.progress
        yield* checking.withPermits(1)(
          switchProcessTo(target, {
            from: from.id,
            to: target.model.id,
            state: "switched",
            staged: total,
            total,
            detail: null
          })
        )
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
    return Reembedder.of({ status: Effect.sync(() => status), follow })
  })
)
