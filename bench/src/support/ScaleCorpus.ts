/**
 * A corpus at scale, loaded straight through the pipeline and the store with precomputed
 * embeddings: the way to fill an account with 10k or 100k memories in minutes instead of hours.
 *
 * Every LoCoMo turn is embedded once by the deployment's embedder (cached in `.cache/bench` by
 * model id); memory i joins two turns drawn by a seeded generator — its text is theirs, its
 * vector the normalised sum of theirs. Memories go through the real pipeline (NLP, hashes) and
 * the real store (signed chain), with an embedder that answers these vectors under the real
 * model's id and size, so a server with the real model opens the store it filled.
 *
 * ```ts
 * const corpus = await ScaleCorpus.make({ root, quick })
 * corpus.synthesize(10_000)
 * await Effect.runPromise(corpus.load("account", 10_000, (i) => ({ user_id: `user-${i % 1000}` }))
 *   .pipe(Effect.provide(corpus.storage(Database.pglite({ dataDir }))))
 * ```
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { AccountStore, type CaptureInput, Embedder, MemoryStore, makeEmbedder, Pipeline } from "@umo/core"
import { defaultPlugins, EmbedderChoice, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Fiber, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { dataDir, load as loadLoCoMo, memoryText } from "../recall/LoCoMo.js"
import { benchSigningKey, progress } from "./Cli.js"
import { seeded } from "./Corpus.js"

/** A memory's own fields beside its text: scope, metadata, source. */
export type MemoryFields = Omit<CaptureInput, "content" | "timestamp">

export interface ScaleCorpusOptions {
  readonly root: string
  /** Draw from the first 150 turns only, so a fresh clone embeds 150 texts, not 2,760. */
  readonly quick: boolean
  /** Texts the real model embeds as well (the benchmark's queries), in the same pass. */
  readonly queries?: ReadonlyArray<string>
}

/** The corpus: its texts as drawn so far, its embedder, and the loader. */
export const make = async (options: ScaleCorpusOptions) => {
  const { turns: allTurns, questions } = loadLoCoMo(dataDir(options.root))
  const turns = options.quick ? allTurns.slice(0, 150) : allTurns
  const turnTexts = turns.map(memoryText)
  const queries = options.queries ?? []

  const embedded = await Effect.runPromise(
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const cache = join(
        options.root,
        ".cache",
        "bench",
        `${embedder.model.id.replace(/\W+/g, "_")}-${turns.length}.json`
      )
      if (!existsSync(cache)) {
        progress(`corpus: embedding ${turnTexts.length} turns with ${embedder.model.id} (once; cached)`)
        const vectors = (yield* embedder.embed(turnTexts)).map((v) => Array.from(v, (x) => Math.fround(x)))
        mkdirSync(dirname(cache), { recursive: true })
        writeFileSync(cache, JSON.stringify(vectors))
      }
      const queryVectors = queries.length === 0 ? [] : yield* embedder.embed(queries)
      return {
        model: embedder.model,
        vectors: JSON.parse(readFileSync(cache, "utf8")) as Array<Array<number>>,
        queries: queries.map((text, i) => ({ text, vector: queryVectors[i]! }))
      }
    }).pipe(Effect.provide(EmbedderChoice.layerConfig))
  )
  const dims = embedded.model.dimensions

  const random = seeded(7)
  const texts: Array<string> = []
  const vectorOf = new Map<string, Float32Array>()
  /** Draws memories until there are `count`: two turns each, one chunk (under 950 characters). */
  const synthesize = (count: number) => {
    while (texts.length < count) {
      const a = Math.floor(random() * turns.length)
      const b = Math.floor(random() * turns.length)
      const text = `${turnTexts[a]} ${turnTexts[b]}`
      if (text.length > 950) continue
      const vector = new Float32Array(dims)
      for (let d = 0; d < dims; d++) vector[d] = embedded.vectors[a]![d]! + embedded.vectors[b]![d]!
      const norm = Math.hypot(...vector)
      for (let d = 0; d < dims; d++) vector[d]! /= norm
      texts.push(text)
      vectorOf.set(text, vector)
    }
  }

  /** The real model's id and size, with the corpus's vectors. */
  const embedder = Layer.succeed(Embedder)(
    makeEmbedder({
      model: embedded.model,
      batchSize: 512,
      embedBatch: (batch) =>
        Effect.succeed(
          batch.map((t) => Array.from(vectorOf.get(t) ?? new Float32Array(dims).fill(1 / Math.sqrt(dims))))
        )
    })
  )

  /** The storage stack on a database, signing with the benchmarks' key, embedding with the corpus. */
  const storage = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
    StorageStack.layer({
      database,
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: benchSigningKey() }),
      embedder
    })

  /**
   * Fills the account up to `size` memories (an account an earlier run filled is topped up), the
   * corpus's first `size` texts with `fields(i)` each: the pipeline works on the next 500 while
   * the store writes the last, four at a time.
   */
  const load = (accountName: string, size: number, fields: (i: number) => MemoryFields = () => ({})) =>
    Effect.gen(function* () {
      synthesize(size)
      const store = yield* MemoryStore
      const { account_id } = yield* (yield* AccountStore).ensureAccount(accountName)
      const pipeline = Pipeline.make(defaultPlugins())
      let storing: Fiber.Fiber<void> | undefined
      const stored = (yield* store.list(account_id, { limit: 1, offset: 0, includeSuperseded: true })).total
      for (let i = stored; i < size; i += 500) {
        const end = Math.min(size, i + 500)
        const inputs = texts
          .slice(i, end)
          .map((content, j) => ({ content, source: "bench", ...fields(i + j) }))
        const umos = yield* Effect.forEach(inputs, (input) => pipeline.process(input), {
          concurrency: "unbounded"
        }).pipe(Effect.orDie)
        if (storing) yield* Fiber.join(storing)
        storing = yield* Effect.forkChild(
          Effect.andThen(
            Effect.forEach(umos, (umo) => store.insert(account_id, umo), { discard: true, concurrency: 4 }),
            Effect.sync(() => {
              progress(`corpus: loaded ${end.toLocaleString("en")} memories`)
            })
          ).pipe(Effect.orDie)
        )
      }
      if (storing) yield* Fiber.join(storing)
      return account_id
    })

  return {
    model: embedded.model,
    /** The LoCoMo questions (for queries drawn without replacement). */
    questions,
    /** The corpus's texts, as many as drawn so far. */
    texts: texts as ReadonlyArray<string>,
    /** `queries`, each with its vector from the real model. */
    queryVectors: embedded.queries,
    synthesize,
    storage,
    load
  }
}

export type ScaleCorpus = Awaited<ReturnType<typeof make>>
