import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { MemoryStore, type Umo } from "@umo/core"
import { Database, IndexedMemorySearch } from "@umo/plugins"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { afterAll, describe, expect } from "vitest"
import { AccountIndex, type IndexedRow } from "../../src/search/AccountIndex.js"
import { makeIndexRows } from "../../src/search/IndexRows.js"
import { makeIndexSnapshots } from "../../src/search/IndexSnapshots.js"
import { graphFrom } from "../../src/search/VectorSet.js"
import { capturedPool, recapture, storageLayer } from "../storage/fixtures.js"
import { newAccount, write } from "./sameAnswers.js"

const dims = 16
/** 50 ms of the real clock (`it.effect`'s is a test clock): a snapshot is taken on a fiber of its own. */
const pause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
const dirs: Array<string> = []
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "umo-snapshots-test-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A deterministic generator of unit vectors (every memory's its own). */
const vectors = (seed: number) => {
  let state = seed
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32 - 0.5
  }
  return () => {
    const v = Array.from({ length: dims }, random)
    const norm = Math.hypot(...v)
    return v.map((x) => x / norm)
  }
}

const uuid = (i: number) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`

const row = (i: number, vector: ReadonlyArray<number>): IndexedRow => ({
  umo_id: uuid(i),
  content: `memory ${i}`,
  summary: `memory ${i}`,
  source: "test",
  user_id: null,
  agent_id: null,
  session_id: null,
  metadata: {},
  categories: [],
  superseded_by: null,
  timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  entities: [],
  facts: [],
  terms: [["memory", 1]],
  length: 1,
  vectors: [vector]
})

/** The share of memories the index finds first for their own vector (through its graph). */
const selfFound = (index: AccountIndex, rows: ReadonlyArray<IndexedRow>) =>
  rows.filter((r) => index.searchVector(Array.from(r.vectors[0]!), { limit: 1 })![0]?.umo_id === r.umo_id)
    .length / rows.length

describe("AccountIndex.adoptGraph", () => {
  it("keeps exactly the keys of unchanged chunks, wherever this load put them, and finds every memory as a built graph does (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.array(fc.nat(graphFrom + 499), { maxLength: 60 }),
        fc.array(fc.nat(graphFrom + 499), { maxLength: 60 }),
        fc.integer({ min: 0, max: 80 }),
        async (seed, deleted, changed, added) => {
          const next = vectors(seed)
          const original = Array.from({ length: graphFrom + 500 }, (_, i) => row(i, next()))
          const saved = new AccountIndex(dims, scratch())
          for (const r of original) saved.add(r, { bulk: true })
          saved.settle()
          saved.buildAll()
          const graph = join(scratch(), "graph")
          expect(await saved.saveGraph(graph)).toBe(true)
          const names = saved.graphChunks()
          const chunks = Array.from({ length: names.keys }, (_, key) => names.at(key))
          saved.close()

          const gone = new Set(deleted)
          const moved = new Set(changed.filter((i) => !gone.has(i)))
          const now = [
            ...Array.from({ length: added }, (_, i) => row(graphFrom + 500 + i, next())),
            ...original.flatMap((r, i) => (gone.has(i) ? [] : [moved.has(i) ? row(i, next()) : r]))
          ].reverse()
          const loaded = new AccountIndex(dims, scratch())
          for (const r of now) loaded.add(r, { bulk: true })
          loaded.settle()
          const kept = await loaded.adoptGraph(graph, chunks.length, (key) => chunks[key])
          expect(kept).toBe(original.length - gone.size - moved.size)
          loaded.buildAll()
          const deletedIds = new Set([...gone].map(uuid))
          for (const r of now.slice(0, 50)) {
            const found = loaded.searchVector(Array.from(r.vectors[0]!), { limit: 20 })!
            expect(found.some((c) => deletedIds.has(c.umo_id))).toBe(false)
          }
          // A key taken for the wrong chunk would lose its memory: found at random, about never.
          expect(selfFound(loaded, now)).toBeGreaterThan(0.98)
          loaded.close()
        }
      ),
      { numRuns: 4 }
    )
  }, 120_000)
})

describe("IndexSnapshots", () => {
  it.layer(storageLayer(Database.pglite()), { timeout: "300 seconds" })((it) => {
    let account = ""
    let memories: Array<Umo> = []
    const dir = scratch()
    const files = (id: string) => ({
      header: join(dir, `${id}.json`),
      graph: join(dir, `${id}.graph`),
      keys: join(dir, `${id}.keys`)
    })

    /** The account's index loaded from the database and, when the snapshot is taken, its graph from it: keys kept. */
    const restored = Effect.gen(function* () {
      const rows = makeIndexRows(yield* SqlClient.SqlClient)
      const loaded = new AccountIndex(dims, scratch())
      for (let after: string | null = null; ; ) {
        const page: ReadonlyArray<IndexedRow> = yield* rows.page(account, after, 1_000)
        for (const r of page) loaded.add(r, { bulk: true })
        if (page.length < 1_000) break
        after = page.at(-1)!.umo_id
      }
      loaded.settle()
      const kept = yield* makeIndexSnapshots(dir, rows, dims).restore(account, loaded)
      loaded.close()
      return kept
    })

    it.effect("an account large enough for a graph: its snapshot is taken once the graph is built", () =>
      Effect.gen(function* () {
        const pool = yield* capturedPool
        const store = yield* MemoryStore
        account = yield* newAccount("snapshots")
        const next = vectors(11)
        memories = Array.from({ length: graphFrom + 200 }, (_, i) => {
          const base = recapture(pool[i % pool.length]!)
          const vector = next()
          return {
            ...base,
            embedding: { ...base.embedding, chunks: [{ ...base.embedding.chunks[0]!, vector }] }
          } satisfies Umo
        })
        for (let at = 0; at < memories.length; at += 500)
          yield* store.insertMany(
            account,
            memories.slice(at, at + 500).map((u) => write(u))
          )
        const sql = yield* SqlClient.SqlClient
        const { index } = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
          preload: false,
          snapshotDir: dir
        })
        yield* index.ready(account)
        for (let waited = 0; !existsSync(files(account).header) && waited < 200; waited++) yield* pause
        const header = JSON.parse(readFileSync(files(account).header, "utf8")) as {
          keys: number
          seq: number
        }
        expect(header.keys).toBe(memories.length)
        expect(yield* restored).toBe(memories.length)
      })
    )

    it.effect("a server started on the snapshot finds every memory it is asked for by its own vector", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { search, index } = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
          preload: false,
          snapshotDir: dir
        })
        yield* index.ready(account)
        let found = 0
        for (const memory of memories.slice(0, 200)) {
          const [best] = yield* search.searchVector(account, memory.embedding.chunks[0]!.vector, { limit: 1 })
          if (best?.umo_id === memory.umo_id) found++
        }
        expect(found).toBeGreaterThan(196)
      })
    )

    it.effect(
      "a snapshot whose chain entry differs, or of a position the chain lacks, is never used, and removed",
      () =>
        Effect.gen(function* () {
          const original = readFileSync(files(account).header, "utf8")
          const header = JSON.parse(original) as { entry_hash: string; seq: number }
          for (const forged of [
            {
              ...header,
              entry_hash: `${header.entry_hash.slice(0, -1)}${header.entry_hash.endsWith("0") ? "1" : "0"}`
            },
            { ...header, seq: header.seq + 1 },
            { ...header, seq: header.seq - 1 }
          ]) {
            writeFileSync(files(account).header, JSON.stringify(forged))
            const [graph, keys] = [readFileSync(files(account).graph), readFileSync(files(account).keys)]
            expect(yield* restored).toBe(0)
            expect(existsSync(files(account).header)).toBe(false)
            writeFileSync(files(account).graph, graph)
            writeFileSync(files(account).keys, keys)
          }
          writeFileSync(files(account).header, original)
          expect(yield* restored).toBe(memories.length)
        })
    )

    it.effect("a snapshot whose files were changed is never used", () =>
      Effect.gen(function* () {
        for (const file of [files(account).graph, files(account).keys]) {
          const bytes = readFileSync(file)
          const changed = Buffer.from(bytes)
          changed[Math.floor(changed.length / 2)]! ^= 1
          writeFileSync(file, changed)
          expect(yield* restored).toBe(0)
          writeFileSync(file, bytes.subarray(0, bytes.length - 1))
          expect(yield* restored).toBe(0)
          writeFileSync(file, bytes)
        }
        expect(yield* restored).toBe(memories.length)
      })
    )

    it.effect("another account's snapshot under this account's name is never used", () =>
      Effect.gen(function* () {
        const other = yield* newAccount("snapshots-other")
        for (const [name, path] of Object.entries(files(account)))
          writeFileSync(files(other)[name as keyof ReturnType<typeof files>], readFileSync(path))
        const sql = yield* SqlClient.SqlClient
        const index = new AccountIndex(dims, scratch())
        expect(yield* makeIndexSnapshots(dir, makeIndexRows(sql), dims).restore(other, index)).toBe(0)
        index.close()
      })
    )

    it.effect("deleting a memory removes the account's snapshot at once; a new one follows without it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* MemoryStore
        const { search, index } = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
          preload: false,
          snapshotDir: dir
        })
        yield* index.ready(account)
        const gone = memories[0]!
        yield* store.remove(account, gone.umo_id)
        const seq = (yield* sql<{
          seq: number
        }>`SELECT seq FROM ledger_heads WHERE account_id = ${account}`)[0]!.seq
        yield* search.sync(account)
        const taken = () =>
          existsSync(files(account).header)
            ? (JSON.parse(readFileSync(files(account).header, "utf8")) as { seq: number }).seq
            : -1
        // Gone at once, or already taken again after the deletion; never the one before it.
        expect([-1, seq]).toContain(taken())
        for (let waited = 0; taken() !== seq && waited < 200; waited++) yield* pause
        expect(
          readFileSync(files(account).keys).includes(Buffer.from(gone.umo_id.replaceAll("-", ""), "hex"))
        ).toBe(false)
        memories = memories.slice(1)
        expect(yield* restored).toBe(memories.length)
      })
    )

    it.effect(
      "a memory deleted while no process indexed the account: its next load drops it and removes the snapshot",
      () =>
        Effect.gen(function* () {
          const store = yield* MemoryStore
          const gone = memories[0]!
          yield* store.remove(account, gone.umo_id)
          memories = memories.slice(1)
          // The graph is still used, without the deleted chunk; the files holding it are gone.
          expect(yield* restored).toBe(memories.length)
          expect(existsSync(files(account).graph)).toBe(false)
          expect(existsSync(files(account).keys)).toBe(false)
          expect(existsSync(files(account).header)).toBe(false)
        })
    )

    it.effect("a snapshot under way when the index stops is finished before it stops", () =>
      Effect.gen(function* () {
        for (const path of Object.values(files(account))) rmSync(path, { force: true })
        const sql = yield* SqlClient.SqlClient
        yield* Effect.scoped(
          Effect.gen(function* () {
            const { index } = yield* IndexedMemorySearch.make(sql, dims, yield* Effect.scope, {
              preload: false,
              snapshotDir: dir
            })
            yield* index.ready(account)
          })
        )
        expect(existsSync(files(account).header)).toBe(true)
        expect(yield* restored).toBe(memories.length)
      })
    )
  })
})
