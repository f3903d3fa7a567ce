import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { GraphThread } from "../../src/search/GraphThread.js"
import { graphFrom, queryOf, VectorSet } from "../../src/search/VectorSet.js"

const dims = 24

/** Random vectors, reproducible. */
const randomVectors = (count: number, seed: number) => {
  let state = seed
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32 - 0.5
  }
  return Array.from({ length: count }, () => Array.from({ length: dims }, random))
}

const nearestOf = (set: VectorSet, vector: ReadonlyArray<number>) => {
  const q = queryOf(vector)
  const near = set.graphReady ? set.nearest(q.vector, q.norm, 5) : set.scan(q.vector, q.norm, 5)
  return [...near].sort((a, b) => b.similarity - a.similarity)[0]?.chunk
}

const built = (vectors: ReadonlyArray<ReadonlyArray<number>>) => {
  const set = new VectorSet(dims)
  for (const [i, v] of vectors.entries()) set.add(i, [v])
  set.buildAll()
  return set
}

/** Resolves after the event loop has turned `n` times. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

describe("the graph thread", () => {
  it("saves a graph while this thread goes on: meanwhile searches scan, building waits, and both resume after", async () => {
    const vectors = randomVectors(graphFrom + 500, 3)
    const set = built(vectors)
    expect(set.graphReady).toBe(true)
    const path = join(mkdtempSync(join(tmpdir(), "umo-graph-")), "graph")
    let saved = false
    const saving = set.saveGraph(path).then((ok) => {
      saved = ok
    })
    // Asked for, not answered yet: the answer comes through the event loop, never at once.
    expect(saved).toBe(false)
    // A chunk captured meanwhile: added once the save is done (requests run in order), so the file
    // holds the graph as it was when the save was asked for.
    const keys = set.graphKeys
    const late = randomVectors(1, 77)[0]!
    const [lateSlot] = set.add(vectors.length, [late])
    set.buildStep()
    expect(set.graphBehind || set.graphKeys === keys + 1).toBe(true)
    // Searches are answered meanwhile (by a scan while the thread saves), and right.
    for (const i of [0, 17, 4_000]) expect(nearestOf(set, vectors[i]!)).toBe(i)
    await saving
    expect(saved).toBe(true)
    set.buildAll()
    expect(set.graphKeys).toBe(keys + 1)
    expect(set.graphReady).toBe(true)
    expect(nearestOf(set, late)).toBe(lateSlot)

    // The file holds the graph as it was when the save was asked for: every chunk but the late one.
    const again = new VectorSet(dims)
    for (const [i, v] of vectors.entries()) again.add(i, [v])
    const slots = set.graphSlots().slice(0, keys)
    await again.adoptGraph(path, slots)
    await turns(1)
    expect(again.graphReady).toBe(true)
    expect(again.graphBehind).toBe(false)
    let found = 0
    for (let i = 0; i < 300; i++) if (nearestOf(again, vectors[i]!) === i) found++
    expect(found).toBeGreaterThan(290)
    set.close()
    again.close()
  }, 120_000)

  it("a request the thread fails gives the thread up: its sets throw (their indexes are dropped), new sets get a new thread", async () => {
    const vectors = randomVectors(graphFrom + 100, 9)
    const before = built(vectors)
    const thread = GraphThread.shared()
    // A removal from a graph the thread does not hold: nobody waits for its answer.
    thread.post({ op: "remove", id: -1, keys: BigUint64Array.of(1n) })
    // Its failure comes back as a message, through the event loop.
    for (let i = 0; i < 500 && !thread.ended; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(thread.ended).toBe(true)
    expect(() => thread.post({ op: "drop", id: -1 })).toThrow(/failed a request/)
    const q = queryOf(vectors[0]!)
    expect(() => before.nearest(q.vector, q.norm, 5)).toThrow(/graph thread ended/)
    expect(() => before.buildStep()).toThrow(/graph thread ended/)
    before.close()
    expect(GraphThread.shared()).not.toBe(thread)
    const after = built(vectors)
    expect(after.graphReady).toBe(true)
    for (const i of [2, 50, 4_000]) expect(nearestOf(after, vectors[i]!)).toBe(i)
    after.close()
  }, 120_000)

  it("a graph file that does not load leaves the set without a graph, which it then builds itself", async () => {
    const vectors = randomVectors(graphFrom + 100, 5)
    const set = new VectorSet(dims)
    for (const [i, v] of vectors.entries()) set.add(i, [v])
    const path = join(mkdtempSync(join(tmpdir(), "umo-graph-")), "graph")
    writeFileSync(path, Buffer.alloc(4_096, 7))
    const slots = Int32Array.from(vectors.keys())
    await expect(set.adoptGraph(path, slots)).rejects.toThrow()
    expect(set.graphed).toBe(false)
    expect(set.graphKeys).toBe(0)
    set.buildAll()
    expect(set.graphReady).toBe(true)
    for (const i of [1, 99, 4_050]) expect(nearestOf(set, vectors[i]!)).toBe(i)
    set.close()
  }, 120_000)
})
