/**
 * What every system is fed, and the one routine that feeds it: the same items in the same order,
 * in batches of 100, and the same queries with the same limit, each call timed by this process.
 * `expectedDigests` replays a workload through a `Recorder` in exactly the order the feed sends
 * it, so a system's manifest can be checked against what the harness meant to send.
 */
import { categoryNames, dataDir, load, memoryText, turnTime } from "../recall/LoCoMo.js"
import type { RankedQuestion } from "../recall/Metrics.js"
import { seeded } from "../support/Corpus.js"
import { p50p95, round1 } from "../support/Stats.js"
import { type Digest, Recorder } from "./Manifest.js"
import type { Item, SystemUnderTest, Usage } from "./Systems.js"

export const batchSize = 100

export interface RecallQuestion {
  readonly space: string
  readonly question: string
  readonly category: number
  readonly evidence: ReadonlyArray<string>
}

/** LoCoMo: one space a conversation, one memory a turn, its questions as queries (limit 50). */
export interface RecallWorkload {
  readonly kind: "recall"
  readonly spaces: ReadonlyArray<{ readonly space: string; readonly items: ReadonlyArray<Item> }>
  readonly questions: ReadonlyArray<RecallQuestion>
  readonly limit: number
}

/**
 * One space that grows through `sizes`; at each size its own queries (limit 10), `queries[k]` at
 * `sizes[k]`. No query is asked twice: a system that keeps the vectors of queries it has seen (UMO
 * does) would otherwise answer the later sizes without its model, and the curve would show the cache.
 */
export interface ScaleWorkload {
  readonly kind: "scale"
  readonly space: string
  readonly items: ReadonlyArray<Item>
  readonly sizes: ReadonlyArray<number>
  readonly queries: ReadonlyArray<ReadonlyArray<string>>
  readonly limit: number
}

export const recallWorkload = (
  root: string,
  options: { readonly conversations?: ReadonlyArray<string>; readonly questionEvery?: number } = {}
): RecallWorkload => {
  const { turns, questions } = load(dataDir(root))
  const conversations = [...new Set(turns.map((t) => t.conv_id))].filter(
    (c) => !options.conversations || options.conversations.includes(c)
  )
  const every = options.questionEvery ?? 1
  return {
    kind: "recall",
    spaces: conversations.map((space) => ({
      space,
      items: turns
        .filter((t) => t.conv_id === space)
        .map((t) => ({ key: t.dia_id, text: memoryText(t), date: turnTime(t) }))
    })),
    questions: conversations.flatMap((space) =>
      questions
        .filter((q) => q.conv_id === space && q.evidence.length > 0)
        .filter((_, i) => i % every === 0)
        .map((q) => ({ space, question: q.question, category: q.category, evidence: q.evidence }))
    ),
    limit: 50
  }
}

/**
 * Memories for the scale runs: two LoCoMo turns joined (seeded draws, as bench:search builds its
 * corpus), each text distinct, at most 950 characters; queries are distinct LoCoMo questions,
 * `queryCount` for each size (seeded draws without replacement).
 */
export const scaleWorkload = (
  root: string,
  sizes: ReadonlyArray<number>,
  queryCount: number
): ScaleWorkload => {
  const { turns, questions } = load(dataDir(root))
  const texts = turns.map(memoryText)
  const random = seeded(7)
  const seen = new Set<string>()
  const items: Array<Item> = []
  const largest = Math.max(...sizes)
  while (items.length < largest) {
    const a = Math.floor(random() * texts.length)
    const b = Math.floor(random() * texts.length)
    const text = `${texts[a]} ${texts[b]}`
    if (a === b || text.length > 950 || seen.has(text)) continue
    seen.add(text)
    items.push({ key: `m${items.length}`, text })
  }
  const distinct = [...new Set(questions.map((q) => q.question))]
  const wanted = queryCount * sizes.length
  if (wanted > distinct.length)
    throw new Error(
      `bench:peers: ${sizes.length} sizes × ${queryCount} queries needs ${wanted} distinct questions; LoCoMo has ${distinct.length}`
    )
  // A seeded Fisher–Yates shuffle: the first `wanted` are a draw without replacement.
  const pick = seeded(11)
  for (let i = distinct.length - 1; i > 0; i--) {
    const j = Math.floor(pick() * (i + 1))
    ;[distinct[i], distinct[j]] = [distinct[j]!, distinct[i]!]
  }
  return {
    kind: "scale",
    space: "scale",
    items,
    sizes: [...sizes].sort((x, y) => x - y),
    queries: sizes.map((_, k) => distinct.slice(k * queryCount, (k + 1) * queryCount)),
    limit: 10
  }
}

/** The digests a system's manifest must show after being fed `workload` (same order as the feed). */
export const expectedDigests = (
  workload: RecallWorkload | ScaleWorkload
): { memories: Digest; queries: Digest } => {
  const recorder = new Recorder()
  if (workload.kind === "recall") {
    for (const { space, items } of workload.spaces)
      for (const item of items) recorder.memory(space, item.text)
    for (const q of workload.questions) recorder.query(q.space, q.question, workload.limit)
  } else {
    let stored = 0
    workload.sizes.forEach((size, k) => {
      for (const item of workload.items.slice(stored, size)) recorder.memory(workload.space, item.text)
      stored = size
      for (const query of workload.queries[k]!) recorder.query(workload.space, query, workload.limit)
    })
  }
  return recorder.digests()
}

/** Stores one batch and times it; a system that stores fewer than it was given fails the run. */
const timedAdd = async (system: SystemUnderTest, space: string, batch: ReadonlyArray<Item>) => {
  const started = performance.now()
  const ids = await system.add(space, batch)
  const ms = performance.now() - started
  if (ids.length !== batch.length) throw new Error(`${system.id} stored ${ids.length} of ${batch.length}`)
  return { ids, ms }
}

export interface RecallRun {
  readonly ranked: ReadonlyArray<RankedQuestion>
  readonly capture: { readonly memories: number; readonly seconds: number; readonly per_second: number }
  readonly search_ms: { readonly p50: number; readonly p95: number }
  readonly usage: Usage
  /** Untimed wait before the searches for the system's background indexing (`SystemUnderTest.settle`). */
  readonly settle_ms?: number
}

export const feedRecall = async (
  system: SystemUnderTest,
  workload: RecallWorkload,
  progress: (text: string) => void = () => undefined
): Promise<RecallRun> => {
  const keyOf = new Map<string, string>()
  let captured = 0
  let captureMs = 0
  for (const { space, items } of workload.spaces) {
    for (let i = 0; i < items.length; i += batchSize) {
      const batch = items.slice(i, i + batchSize)
      const { ids, ms } = await timedAdd(system, space, batch)
      captureMs += ms
      for (const [j, id] of ids.entries()) keyOf.set(`${space}\u0000${id}`, batch[j]!.key)
      captured += batch.length
      progress(`${system.id}: captured ${captured} memories`)
    }
  }
  const latencies: Array<number> = []
  const ranked: Array<RankedQuestion> = []
  for (const [i, q] of workload.questions.entries()) {
    const started = performance.now()
    const ids = await system.search(q.space, q.question, workload.limit)
    latencies.push(performance.now() - started)
    ranked.push({
      category: q.category,
      evidence: q.evidence,
      ranked: ids.map((id) => keyOf.get(`${q.space}\u0000${id}`) ?? "?")
    })
    if (i % 10 === 0) progress(`${system.id}: searched ${i + 1}/${workload.questions.length}`)
  }
  const seconds = captureMs / 1000
  return {
    ranked,
    capture: { memories: captured, seconds: round1(seconds), per_second: round1(captured / seconds) },
    search_ms: p50p95(latencies),
    usage: await system.usage()
  }
}

export interface ScalePoint {
  readonly size: number
  /** Memories a second while the space grew to this size from the last one. */
  readonly capture_per_second: number
  readonly search_ms: { readonly p50: number; readonly p95: number }
  readonly usage: Usage
  /** Untimed wait before the searches for the system's background indexing (`SystemUnderTest.settle`). */
  readonly settle_ms?: number
}

export const feedScale = async (
  system: SystemUnderTest,
  workload: ScaleWorkload,
  progress: (text: string) => void = () => undefined
): Promise<Array<ScalePoint>> => {
  const points: Array<ScalePoint> = []
  let stored = 0
  for (const [k, size] of workload.sizes.entries()) {
    let ms = 0
    const from = stored
    for (let i = stored; i < size; i += batchSize) {
      const batch = workload.items.slice(i, Math.min(size, i + batchSize))
      ms += (await timedAdd(system, workload.space, batch)).ms
      stored += batch.length
      progress(`${system.id}: ${stored}/${size} memories`)
    }
    const settled = system.settle ? await system.settle(workload.space) : undefined
    const latencies: Array<number> = []
    for (const query of workload.queries[k]!) {
      const started = performance.now()
      await system.search(workload.space, query, workload.limit)
      latencies.push(performance.now() - started)
    }
    progress(`${system.id}: ${size} memories searched`)
    points.push({
      size,
      capture_per_second: round1((stored - from) / (ms / 1000)),
      search_ms: p50p95(latencies),
      usage: await system.usage(),
      ...(settled === undefined ? {} : { settle_ms: settled })
    })
  }
  return points
}

export { categoryNames }
