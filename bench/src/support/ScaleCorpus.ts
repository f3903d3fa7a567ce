/**
 * A corpus at scale, loaded straight through the pipeline and the store with precomputed
 * embeddings: the way to fill an account with 10k, 100k or 1M memories in minutes instead of hours.
 *
 * Every LoCoMo turn is embedded once by the deployment's embedder (cached in `.cache/bench` by
 * model id); memory i joins two turns drawn by a seeded generator — its text is theirs, its
 * vector the normalised sum of theirs. The store is the real one (signed chain, postings,
 * statistics), with an embedder that answers these vectors under the real model's id and size,
 * so a server with the real model opens the store it filled. Two loaders:
 *
 * - `load`: every memory through the whole default pipeline, stored one at a time (four
 *   transactions in flight): about 5 minutes per 10,000 memories on two cores.
 * - `bulkLoad`: the same texts and vectors, the same pipeline but for entity extraction, which is
 *   run once per turn (2,760 turns) and joined for each memory (the second turn's entities moved
 *   past the first's text, a name found in both kept once, as the extractor keeps it); it takes
 *   three quarters of the pipeline's time. Memories are stored 500 to a transaction (one chain
 *   append), the next 500 made meanwhile. `rebuildVectorIndex` drops the database's HNSW index
 *   first and builds it once at the end (what `CREATE INDEX` does in one pass is far cheaper than
 *   a million inserts into the graph). See bench/README.md for the times.
 *
 * ```ts
 * const corpus = await ScaleCorpus.make({ root, quick })
 * await Effect.runPromise(corpus.bulkLoad("account", 100_000, (i) => ({ scope: { user_id: `user-${i % 1000}` } }))
 *   .pipe(Effect.provide(corpus.storage(Database.postgres(url)))))
 * ```
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import {
  AccountStore,
  type CaptureInput,
  type Draft,
  Embedder,
  type Entity,
  MemoryStore,
  makeEmbedder,
  makePlugin,
  Pipeline,
  type Plugin
} from "@umo/core"
import {
  defaultPlugins,
  EmbedderChoice,
  findEntities,
  normalizeText,
  SigningKey,
  StorageStack
} from "@umo/plugins"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
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

/** How a bulk load went: memories added, seconds storing them, seconds building the HNSW index. */
export interface LoadReport {
  readonly account_id: string
  readonly added: number
  readonly store_seconds: number
  readonly vector_index_seconds: number | null
}

/** Memories stored in one transaction by `bulkLoad`. */
const bulkBatch = 500

/** The corpus: its texts and vectors by position, its embedder, and the loaders. */
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

  // Memory i is turns firsts[i] and seconds[i]: the same seeded draw every run, so a kept
  // database is topped up with the memories that follow the ones it holds.
  const random = seeded(7)
  let firsts = new Int32Array(1_024)
  let seconds = new Int32Array(1_024)
  let drawn = 0
  /** Draws memories until there are `count`: two turns each, one chunk (under 950 characters). */
  const synthesize = (count: number) => {
    if (count > firsts.length) {
      const grown = Math.max(count, 2 * firsts.length)
      const f = new Int32Array(grown)
      f.set(firsts)
      const s = new Int32Array(grown)
      s.set(seconds)
      firsts = f
      seconds = s
    }
    while (drawn < count) {
      const a = Math.floor(random() * turns.length)
      const b = Math.floor(random() * turns.length)
      if (turnTexts[a]!.length + 1 + turnTexts[b]!.length > 950) continue
      firsts[drawn] = a
      seconds[drawn] = b
      drawn++
    }
  }
  const text = (i: number) => `${turnTexts[firsts[i]!]} ${turnTexts[seconds[i]!]}`
  /** Memory i's vector: the normalised sum of its turns' vectors. */
  const vector = (i: number) => {
    const a = embedded.vectors[firsts[i]!]!
    const b = embedded.vectors[seconds[i]!]!
    const v = new Float32Array(dims)
    let norm = 0
    for (let d = 0; d < dims; d++) {
      v[d] = a[d]! + b[d]!
      norm += v[d]! * v[d]!
    }
    norm = Math.sqrt(norm)
    for (let d = 0; d < dims; d++) v[d]! /= norm
    return v
  }

  // The vectors the corpus embedder answers, by the text it is asked to embed (the pipeline
  // embeds the normalized content): those of the memories being made. An unknown text fails
  // the load (it used to get a constant vector: the 40 LoCoMo turns that normalization changes).
  const vectorOf = new Map<string, Float32Array>()
  const expect = (i: number) => {
    const v = vector(i)
    vectorOf.set(text(i), v)
    vectorOf.set(normalizeText(text(i)), v)
  }

  /** The real model's id and size, with the corpus's vectors. */
  const embedder = Layer.succeed(Embedder)(
    makeEmbedder({
      model: embedded.model,
      batchSize: 512,
      embedBatch: (batch) =>
        Effect.sync(() =>
          batch.map((t) => {
            const v = vectorOf.get(t)
            if (v === undefined) throw new Error(`the scale corpus has no vector for ${JSON.stringify(t)}`)
            return Array.from(v)
          })
        )
    })
  )

  /**
   * The storage stack on a database, signing with the benchmarks' key, embedding with the corpus;
   * its search index does not preload (the loader does not search).
   */
  const storage = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
    StorageStack.layer({
      database,
      signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: benchSigningKey() }),
      embedder,
      searchIndex: { preload: false }
    })

  const ensure = (accountName: string) =>
    Effect.gen(function* () {
      const { account_id } = yield* (yield* AccountStore).ensureAccount(accountName)
      const stored = (yield* (yield* MemoryStore).list(account_id, {
        limit: 1,
        offset: 0,
        includeSuperseded: true
      })).total
      return { account_id, stored }
    })

  /**
   * Fills the account up to `size` memories (an account an earlier run filled is topped up), the
   * corpus's first `size` texts with `fields(i)` each, every one through the whole default
   * pipeline: the pipeline works on the next 500 while the store writes the last, four at a time.
   */
  const load = (accountName: string, size: number, fields: (i: number) => MemoryFields = () => ({})) =>
    Effect.gen(function* () {
      synthesize(size)
      const store = yield* MemoryStore
      const { account_id, stored } = yield* ensure(accountName)
      const pipeline = Pipeline.make(defaultPlugins())
      let storing: Fiber.Fiber<void> | undefined
      for (let i = stored; i < size; i += 500) {
        const end = Math.min(size, i + 500)
        const inputs = Array.from({ length: end - i }, (_, j) => {
          expect(i + j)
          return { content: text(i + j), source: "bench", ...fields(i + j) }
        })
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
      vectorOf.clear()
      return account_id
    })

  // Entities of each turn (normalized), found once, with the timestamp of the first memory that needed them.
  const normalizedTurns = turnTexts.map(normalizeText)
  const turnEntities = new Map<number, ReadonlyArray<Entity>>()
  const entitiesOf = (turn: number, timestamp: string) => {
    let found = turnEntities.get(turn)
    if (found === undefined) {
      found = findEntities(normalizedTurns[turn]!, timestamp)
      turnEntities.set(turn, found)
    }
    return found
  }
  /** The memory (its two turns) each content being made belongs to. */
  const pairOf = new Map<string, readonly [number, number]>()
  const realEntities = defaultPlugins().find((p) => p.name === "entities")!
  /**
   * The `entities` plugin (same name, version and stage as the default one) for a memory of two
   * turns: the first turn's entities, then the second's moved past the first and its space, a
   * name already found kept once — what `findEntities` gives for the joined text but for a name
   * or date that would span the join. Any other text goes to the real plugin.
   */
  const joinedEntities: Plugin<Embedder> = makePlugin({
    name: realEntities.name,
    version: realEntities.version,
    stage: realEntities.stage,
    run: (draft: Draft) => {
      const pair = pairOf.get(draft.content)
      const [a, b] = pair ?? [-1, -1]
      if (pair === undefined || draft.content !== `${normalizedTurns[a]} ${normalizedTurns[b]}`)
        return realEntities.run(draft)
      const shift = normalizedTurns[a]!.length + 1
      const seen = new Set<string>()
      const entities: Array<Entity> = []
      for (const [entity, offset] of [
        ...entitiesOf(a, draft.timestamp).map((e) => [e, 0] as const),
        ...entitiesOf(b, draft.timestamp).map((e) => [e, shift] as const)
      ]) {
        const key = `${entity.type}:${entity.text.toLowerCase()}`
        if (seen.has(key)) continue
        seen.add(key)
        entities.push({ ...entity, start: entity.start + offset, end: entity.end + offset })
      }
      return Effect.succeed({ ...draft, entities })
    }
  })

  /**
   * Fills the account up to `size` memories like `load` (the same texts, vectors and fields),
   * faster: entities joined from the turns' (see the module's comment), 500 memories a
   * transaction, and with `rebuildVectorIndex` the database's HNSW index built once at the end.
   */
  const bulkLoad = (
    accountName: string,
    size: number,
    fields: (i: number) => MemoryFields = () => ({}),
    { rebuildVectorIndex = false }: { readonly rebuildVectorIndex?: boolean } = {}
  ) =>
    Effect.gen(function* () {
      synthesize(size)
      const store = yield* MemoryStore
      const sql = yield* SqlClient.SqlClient
      const { account_id, stored } = yield* ensure(accountName)
      if (stored >= size) return { account_id, added: 0, store_seconds: 0, vector_index_seconds: null }
      const hnsw = `memory_chunks_embedding_hnsw_${dims}`
      if (rebuildVectorIndex) yield* sql.unsafe(`DROP INDEX IF EXISTS ${hnsw}`)
      const pipeline = Pipeline.make(
        defaultPlugins().map((p) => (p.name === "entities" ? joinedEntities : p))
      )
      const started = performance.now()
      let storing: Fiber.Fiber<void> | undefined
      for (let i = stored; i < size; i += bulkBatch) {
        const end = Math.min(size, i + bulkBatch)
        const inputs = Array.from({ length: end - i }, (_, j) => {
          const at = i + j
          expect(at)
          pairOf.set(normalizeText(text(at)), [firsts[at]!, seconds[at]!])
          return { content: text(at), source: "bench", ...fields(at) }
        })
        const umos = yield* Effect.forEach(inputs, (input) => pipeline.process(input), {
          concurrency: "unbounded"
        }).pipe(Effect.orDie)
        vectorOf.clear()
        pairOf.clear()
        if (storing) yield* Fiber.join(storing)
        storing = yield* Effect.forkChild(
          Effect.andThen(
            store.insertMany(
              account_id,
              umos.map((umo) => ({ umo, supersedes: [], facts: [], inferUpdates: false }))
            ),
            Effect.sync(() => {
              const rate = (end - stored) / ((performance.now() - started) / 1000)
              progress(
                `corpus: loaded ${end.toLocaleString("en")} of ${size.toLocaleString("en")} memories, ${Math.round(rate)}/s, ${Math.round((size - end) / rate / 60)} min to go`
              )
            })
          ).pipe(Effect.orDie)
        )
      }
      if (storing) yield* Fiber.join(storing)
      const storeSeconds = (performance.now() - started) / 1000
      let indexSeconds: number | null = null
      if (rebuildVectorIndex) {
        progress(`corpus: building the database's HNSW index over ${size.toLocaleString("en")} vectors`)
        const building = performance.now()
        // One session: the settings hold for the CREATE INDEX in the same transaction.
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql.unsafe(`SET LOCAL maintenance_work_mem = '8GB'`)
            yield* sql.unsafe(`SET LOCAL max_parallel_maintenance_workers = 1`)
            yield* sql.unsafe(
              `CREATE INDEX IF NOT EXISTS ${hnsw} ON memory_chunks
               USING hnsw ((embedding::vector(${dims})) vector_cosine_ops)`
            )
          })
        )
        yield* sql`ANALYZE`
        indexSeconds = (performance.now() - building) / 1000
      }
      return {
        account_id,
        added: size - stored,
        store_seconds: Math.round(storeSeconds),
        vector_index_seconds: indexSeconds === null ? null : Math.round(indexSeconds)
      } satisfies LoadReport
    })

  return {
    model: embedded.model,
    /** The LoCoMo questions (for queries drawn without replacement). */
    questions,
    /** Memory i's text (after `synthesize(i + 1)`, which the loaders call). */
    text,
    /** Memory i's vector: unit length, the normalised sum of its two turns' real embeddings. */
    vector,
    /** `queries`, each with its vector from the real model. */
    queryVectors: embedded.queries,
    synthesize,
    storage,
    load,
    bulkLoad
  }
}

export type ScaleCorpus = Awaited<ReturnType<typeof make>>
