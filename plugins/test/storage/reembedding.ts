import {
  AccountStore,
  Embedder,
  type EmbedderShape,
  Ledger,
  MemoryProvenance,
  MemorySearch,
  MemoryStore,
  type Umo
} from "@umo/core"
import { chunkSpans, Reembedder, type ReembeddingStatus, SigningKey, StorageStack } from "@umo/plugins"
import { Array as Arr, Effect, Layer, ManagedRuntime, Option } from "effect"
import { SqlClient } from "effect/sql"
import { expect } from "vitest"
import { capturedPool, pipeline, recapture, TestEmbedder, testKeyPem } from "./fixtures.js"

/** Another model: words hashed into 12 buckets, so its vectors differ from the store's in length too. */
const twelve = (text: string) => {
  const v = Array.from({ length: 12 }, () => 0)
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? [])
    v[(word.length * 7 + word.charCodeAt(0)) % 12]! += 1
  if (!v.some((x) => x !== 0)) v[0] = 1
  return v
}

/** The new model; it answers `calls` calls and then hangs (a process that dies mid-way), and counts the texts it embedded. */
const newModel = (calls = Number.POSITIVE_INFINITY) => {
  const seen = { texts: 0, calls: 0 }
  // Not `makeEmbedder`, which embeds each distinct text once: every text asked for is counted.
  const embedder: EmbedderShape = {
    model: { id: "test-twelve", dimensions: 12, maxChunkChars: 200 },
    embed: (texts) =>
      seen.calls++ >= calls
        ? Effect.never
        : Effect.sync(() => {
            seen.texts += texts.length
            return texts.map(twelve)
          })
  }
  return { layer: Layer.succeed(Embedder)(embedder), embedder, seen }
}

const stack = (
  database: Layer.Layer<SqlClient.SqlClient, unknown>,
  embedder: Layer.Layer<Embedder>,
  reembed = false
) =>
  StorageStack.layer({
    database,
    signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
    embedder,
    // The models this process can load by the id a store recorded: the first one, and the new one.
    pinnedEmbedder: (id) => {
      if (id === "test-twelve") return newModel().layer
      if (id !== "test-bag-of-words") throw new Error(`asked for ${id}`)
      return TestEmbedder
    },
    reembed,
    ledger: { checkpointInterval: 16 }
  })

const statusOf = Effect.flatMap(Effect.service(Reembedder), (r) => r.status)

/** Waits until the re-embedding's status passes `done`. */
const until = (done: (status: ReembeddingStatus) => boolean) =>
  Effect.gen(function* () {
    for (;;) {
      const status = yield* statusOf
      if (status !== null && done(status)) return status
      yield* Effect.sleep("20 millis")
    }
  }).pipe(Effect.timeout("60 seconds"))

const chunkDims = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return (yield* sql<{
    dims: number
  }>`SELECT DISTINCT vector_dims(embedding) AS dims FROM memory_chunks`).map((r) => r.dims)
})

/**
 * A store filled by one model (two accounts of its own beside whatever the database holds), then
 * re-embedded with another: interrupted once its new model hangs, resumed, switched; checked as
 * the docs say (docs/pipeline.md "Changing the embedder"). `expectedGraphs`: pgvector's graphs expected
 * after the switch.
 */
export const reembeddingScenario = async (
  database: () => Layer.Layer<SqlClient.SqlClient, unknown>,
  expectedGraphs: ReadonlyArray<string>,
  { follower = false }: { readonly follower?: boolean } = {}
) => {
  // A store of two accounts filled with the first model; one memory deleted.
  const filled = await Effect.runPromise(
    Effect.gen(function* () {
      const accounts = yield* AccountStore
      const store = yield* MemoryStore
      const pool = yield* capturedPool
      const ids: Record<string, Array<Umo>> = {}
      for (const name of ["alice", "bob"].map((n) => `${n}-${crypto.randomUUID()}`)) {
        const account = yield* accounts.ensureAccount(name)
        const umos = Array.from({ length: 70 }, (_, i) => recapture(pool[i % pool.length]!))
        for (const umo of umos) yield* store.insert(account.account_id, umo)
        ids[account.account_id] = umos
      }
      const [first] = Object.keys(ids)
      yield* store.remove(first!, ids[first!]![0]!.umo_id)
      ids[first!] = ids[first!]!.slice(1)
      return ids
    }).pipe(Effect.provide(stack(database(), TestEmbedder)))
  )

  // Started with the new model and asked to re-embed: it stages until its embedder hangs, then
  // the process goes (its scope closes), with searches answered from the old vectors meanwhile.
  const interrupted = newModel(1)
  const before = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const status = yield* until((s) => s.staged >= 56)
        expect(status).toMatchObject({ from: "test-bag-of-words", to: "test-twelve", state: "embedding" })
        const embedder = yield* Embedder
        expect(embedder.model.id).toBe("test-bag-of-words")
        const [account] = Object.keys(filled)
        const [vector] = yield* embedder.embed(["Marie Curie was born in Warsaw and worked in Paris."])
        const hits = yield* (yield* MemorySearch).searchVector(account!, vector!, { limit: 3 })
        expect(hits.length).toBeGreaterThan(0)
        expect(yield* chunkDims).toEqual([16])
        // A capture meanwhile is embedded with the old model, and re-embedded before the switch.
        const late = recapture(
          yield* pipeline
            .process({ content: "Ada Lovelace wrote the first program." })
            .pipe(Effect.provideService(Embedder, embedder))
        )
        yield* (yield* MemoryStore).insert(account!, late)
        filled[account!]!.push(late)
        // What is staged, of all the store holds (other accounts' too), and the texts left to embed:
        // the chunks of the memories with none staged, as the new model's length makes them (other
        // tests' records may hold chunks it merges or cuts).
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ staged: number; total: number }>`
          SELECT (SELECT count(*)::int FROM memory_chunks_next WHERE chunk_index = 0) AS staged,
            (SELECT count(*)::int FROM memories) AS total`
        const chunks = yield* sql<{ memory: string; content: string; start: number; end: number }>`
          SELECT m.account_id::text || '/' || m.umo_id::text AS memory, m.content,
            c.start_offset AS start, c.end_offset AS end
          FROM memories m JOIN memory_chunks c ON c.account_id = m.account_id AND c.umo_id = m.umo_id
          WHERE NOT EXISTS (SELECT 1 FROM memory_chunks_next n
            WHERE n.account_id = m.account_id AND n.umo_id = m.umo_id AND n.chunk_index = 0)
          ORDER BY m.account_id, m.umo_id, c.chunk_index`
        const left = Object.values(Arr.groupBy(chunks, (c) => c.memory)).reduce(
          (sum, spans) =>
            sum + chunkSpans(spans[0]!.content, spans, interrupted.embedder.model.maxChunkChars).length,
          0
        )
        return { ...row!, left }
      }).pipe(Effect.provide(stack(database(), interrupted.layer, true)))
    )
  )
  const total = before.total
  expect(before.staged).toBe(64)
  expect(before.staged).toBeLessThan(total)

  // Another process on the database, which does not re-embed: it reads the store's pin every second.
  process.env["UMO_EMBEDDER_FOLLOW_SECONDS"] = "1"
  const other = follower ? ManagedRuntime.make(stack(database(), TestEmbedder)) : undefined
  if (other !== undefined)
    expect((await other.runPromise(Effect.service(Embedder))).model.id).toBe("test-bag-of-words")
  delete process.env["UMO_EMBEDDER_FOLLOW_SECONDS"]

  // Started again: it goes on from what is staged, embeds only the rest, and switches.
  const resumed = newModel()
  const after = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        yield* until((s) => s.state === "switched")
        // What the re-embedding embedded (the searches and the capture below embed with it too).
        const reembedded = resumed.seen.texts
        const embedder = yield* Embedder
        const provenance = yield* MemoryProvenance
        const ledger = yield* Ledger
        const proofs = yield* Effect.forEach(Object.entries(filled), ([account, umos]) =>
          Effect.forEach(umos, (umo) => provenance.proof(account, umo.umo_id))
        )
        const audits = yield* Effect.forEach(Object.keys(filled), (account) => ledger.audit(account))
        const reembeds = yield* Effect.forEach(Object.keys(filled), (account) =>
          Effect.map(ledger.entries(account, { limit: 1_000 }), (page) =>
            page.entries.filter((e) => e.kind === "reembed").map((e) => e.umo_id)
          )
        )
        const [account] = Object.keys(filled)
        const text = "Marie Curie was born in Warsaw and worked in Paris."
        const [vector] = yield* embedder.embed([text])
        const hits = yield* (yield* MemorySearch).searchVector(account!, vector!, { limit: 1 })
        const stored = yield* (yield* MemoryStore).get(account!, hits[0]!.umo_id)
        // A capture now is embedded with the new model and stored beside the others.
        const umo = recapture(
          yield* pipeline.process({ content: text }).pipe(Effect.provideService(Embedder, embedder))
        )
        yield* (yield* MemoryStore).insert(account!, umo)
        const sql = yield* SqlClient.SqlClient
        const [left] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM memory_chunks_next`
        // pgvector's graph: the old dimension's went before the switch; on PostgreSQL the new one
        // is built after it (PGlite keeps none while the in-process index serves).
        const graphs = () =>
          Effect.map(
            sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
                WHERE tablename = 'memory_chunks' AND indexname LIKE '%hnsw%'`,
            (rows) => rows.map((r) => r.name)
          )
        while (JSON.stringify(yield* graphs()) !== JSON.stringify(expectedGraphs))
          yield* Effect.sleep("50 millis")
        return {
          model: embedder.model.id,
          proofs: proofs.flat(),
          audits,
          reembeds,
          dims: yield* chunkDims,
          top: stored,
          captured: umo.embedding.model,
          left: left!.n,
          reembedded,
          status: yield* statusOf
        }
      }).pipe(Effect.provide(stack(database(), resumed.layer, true)))
    )
  )
  expect(after.model).toBe("test-twelve")
  expect(after.status).toMatchObject({ state: "switched", staged: total, total })
  // Exactly the texts of the memories the interrupted run had not staged were embedded again.
  expect(after.reembedded).toBe(before.left)
  expect(after.proofs.every((p) => p._tag === "Some" && p.value.valid && p.value.hash_chain_valid)).toBe(true)
  expect(after.audits.every((a) => a.valid)).toBe(true)
  // One signed `reembed` entry per memory.
  expect(after.reembeds.map((ids) => ids.length)).toEqual(Object.values(filled).map((umos) => umos.length))
  expect(after.dims).toEqual([12])
  expect(after.left).toBe(0)
  expect(after.captured).toBe("test-twelve")
  // Searched with the new model, the memory of the same text comes first.
  expect(Option.getOrThrow(after.top).content).toBe("Marie Curie was born in Warsaw and worked in Paris.")

  // The other process follows within its interval: it embeds with the new model, its index holds
  // the new vectors (the memory of the same text first), and what it captures is the new model's.
  if (other !== undefined) {
    const followed = await other.runPromise(
      Effect.gen(function* () {
        const embedder = yield* Embedder
        while (embedder.model.id !== "test-twelve") yield* Effect.sleep("50 millis")
        const [account] = Object.keys(filled)
        const text = "Marie Curie was born in Warsaw and worked in Paris."
        const [vector] = yield* embedder.embed([text])
        const hits = yield* (yield* MemorySearch).searchVector(account!, vector!, { limit: 1 })
        const umo = recapture(
          yield* pipeline.process({ content: text }).pipe(Effect.provideService(Embedder, embedder))
        )
        yield* (yield* MemoryStore).insert(account!, umo)
        return {
          top: Option.getOrThrow(yield* (yield* MemoryStore).get(account!, hits[0]!.umo_id)).content,
          captured: umo.embedding.model,
          status: yield* statusOf
        }
      }).pipe(Effect.timeout("30 seconds"))
    )
    await other.dispose()
    expect(followed).toEqual({
      top: "Marie Curie was born in Warsaw and worked in Paris.",
      captured: "test-twelve",
      status: expect.objectContaining({ from: "test-bag-of-words", to: "test-twelve", state: "switched" })
    })
  }

  // The store is the new model's now: it opens with it alone, without a re-embedding.
  const reopened = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        return { status: yield* statusOf, model: (yield* Embedder).model.id }
      }).pipe(Effect.provide(stack(database(), newModel().layer)))
    )
  )
  expect(reopened).toEqual({ status: null, model: "test-twelve" })
}
