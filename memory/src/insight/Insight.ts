import {
  canonicalJson,
  cosineSimilarity,
  Embedder,
  MemoryStore,
  makeDraft,
  type Pipeline,
  qualityOf,
  type StoredMemory
} from "@umo/core"
import { Effect } from "effect"
import { storeFailure } from "../Errors.js"

const mean = (vectors: ReadonlyArray<ReadonlyArray<number>>) =>
  vectors.length === 0
    ? []
    : vectors[0]!.map((_, i) => vectors.reduce((s, v) => s + v[i]!, 0) / vectors.length)

const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
  const shared = [...a].filter((x) => b.has(x))
  const union = new Set([...a, ...b]).size
  return { value: union === 0 ? 0 : shared.length / union, shared }
}

const entityKeys = (m: StoredMemory) => new Set(m.entities.map((e) => `${e.type}:${e.text.toLowerCase()}`))
const topicKeys = (m: StoredMemory) => new Set(m.topics.map((t) => t.name))
const tripleKeys = (m: StoredMemory) =>
  new Set(m.svo_triples.map((t) => `${t.subject} ${t.verb} ${t.object}`.toLowerCase()))
const round = (x: number) => Math.round(x * 1e4) / 1e4

/** How much each signal counts in a match score. */
export const matchWeights = { semantic: 0.6, entity: 0.2, topic: 0.1, triple: 0.1 } as const

const isScalar = (value: unknown) => value === null || typeof value !== "object"

/** A value of a plugin's findings, briefly: scalars and lists of scalars as they are, the rest counted. */
const brief = (value: unknown): string =>
  Array.isArray(value)
    ? value.every(isScalar)
      ? `${value.slice(0, 8).map(String).join(", ")}${value.length > 8 ? `, … (${value.length})` : ""}`
      : `${value.length} items`
    : isScalar(value)
      ? String(value).slice(0, 80)
      : `${Object.keys(value as object).length} fields`

/** What a plugin's findings (its `extensions` entry) say, in a line. */
const describeExtension = (plugin: string, findings: unknown) => {
  const said =
    typeof findings === "object" && findings !== null && !Array.isArray(findings)
      ? Object.entries(findings)
          .slice(0, 6)
          .map(([field, value]) => `${field}: ${brief(value)}`)
          .join("; ")
      : brief(findings)
  return `Plugin ${plugin} found: ${said || "nothing"}`
}

/**
 * Compares and explains memories: match scores from embedding similarity and shared entities,
 * topics and triples; plain-language explanations of what a capture extracted — custom plugins'
 * findings too — and why, and whether this pipeline reproduces it.
 */
export const make = (pipeline: Pipeline.Pipeline<Embedder>) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const embedder = yield* Embedder
    const vectorsOf = (accountId: string, umoId: string) =>
      store.vectors(accountId, umoId).pipe(Effect.catch(storeFailure))

    const match = (accountId: string, a: StoredMemory, b: StoredMemory, threshold: number) =>
      Effect.gen(function* () {
        const cos = cosineSimilarity(
          mean(yield* vectorsOf(accountId, a.umo_id)),
          mean(yield* vectorsOf(accountId, b.umo_id))
        )
        const similarity = round(Math.min(1, Math.max(0, (cos + 1) / 2)))
        const entity = jaccard(entityKeys(a), entityKeys(b))
        const topic = jaccard(topicKeys(a), topicKeys(b))
        const triple = jaccard(tripleKeys(a), tripleKeys(b))
        const score = round(
          matchWeights.semantic * similarity +
            matchWeights.entity * entity.value +
            matchWeights.topic * topic.value +
            matchWeights.triple * triple.value
        )
        const duplicate = a.content_hash === b.content_hash || score >= Math.max(0.9, threshold)
        return {
          score: a.content_hash === b.content_hash ? 1 : score,
          similarity,
          relationship: duplicate
            ? ("duplicate" as const)
            : score >= threshold
              ? ("related" as const)
              : ("unrelated" as const),
          matched: duplicate || score >= threshold,
          breakdown: {
            weights: matchWeights,
            semantic: similarity,
            entity_overlap: round(entity.value),
            topic_overlap: round(topic.value),
            triple_overlap: round(triple.value),
            shared_entities: entity.shared.map((k) => ({
              type: k.slice(0, k.indexOf(":")),
              text: k.slice(k.indexOf(":") + 1)
            })),
            shared_topics: topic.shared,
            identical_content: a.content_hash === b.content_hash
          }
        }
      })

    const explain = (accountId: string, m: StoredMemory, query: string | undefined) =>
      Effect.gen(function* () {
        const words = m.content.split(/\s+/).filter(Boolean).length
        const quality = qualityOf({
          ...makeDraft({ content: m.content, source: m.source, timestamp: m.timestamp }),
          entities: m.entities,
          svo_triples: m.svo_triples,
          topics: m.topics,
          summary: m.summary
        })
        const counts = new Map<string, number>()
        for (const e of m.entities) counts.set(e.type, (counts.get(e.type) ?? 0) + 1)
        const byType = [...counts].map(([type, n]) => `${n} ${type.toLowerCase()}`)
        const reasons: Array<string> = []
        if (m.entities.length > 0) {
          reasons.push(
            `Entities: ${m.entities
              .slice(0, 8)
              .map((e) => `${e.text} (${e.type})`)
              .join(", ")}`
          )
        }
        if (m.svo_triples.length > 0) {
          reasons.push(
            `Relationships: ${m.svo_triples
              .slice(0, 5)
              .map((t) => `${t.subject} → ${t.verb} → ${t.object}`)
              .join("; ")}`
          )
        }
        if (m.topics.length > 0) reasons.push(`Topics: ${m.topics.map((t) => t.name).join(", ")}`)
        for (const [plugin, findings] of Object.entries(m.extensions))
          reasons.push(describeExtension(plugin, findings))
        reasons.push(`Tone: ${m.tone.label} (${m.tone.score})`)
        for (const f of quality.factors) {
          if (f.value >= 0.8) reasons.push(`Raised quality: ${f.note}`)
          else if (f.value < 0.5) reasons.push(`Lowered quality: ${f.note}`)
        }
        if (query !== undefined && query.trim().length > 0) {
          const [q] = yield* embedder.embed([query], { urgent: true }).pipe(Effect.orDie)
          const best = Math.max(
            0,
            ...(yield* vectorsOf(accountId, m.umo_id)).map((v) => cosineSimilarity(v, q!))
          )
          const queryWords = new Set(query.toLowerCase().match(/\p{L}{3,}/gu) ?? [])
          const shared = [...new Set(m.content.toLowerCase().match(/\p{L}{3,}/gu) ?? [])].filter((w) =>
            queryWords.has(w)
          )
          const sharedEntities = m.entities.filter((e) => query.toLowerCase().includes(e.text.toLowerCase()))
          reasons.unshift(
            `Semantic similarity to the query: ${round(best)}`,
            shared.length > 0 ? `Shares the terms: ${shared.join(", ")}` : "Shares no terms with the query",
            ...(sharedEntities.length > 0
              ? [`Mentions the query's entities: ${sharedEntities.map((e) => e.text).join(", ")}`]
              : [])
          )
        }
        const current = pipeline.versions
        // Compared canonically: the database returns JSON objects with their keys in its own order.
        const samePipeline = canonicalJson(current) === canonicalJson(m.pipeline)
        const reproduced = samePipeline
          ? yield* pipeline.reproduceSemanticHash(m).pipe(
              Effect.provideService(Embedder, embedder),
              Effect.map((hash) => hash === m.semantic_hash),
              Effect.orElseSucceed(() => false)
            )
          : false
        return {
          human: {
            summary:
              `Captured ${words} words${m.source ? ` from "${m.source}"` : ""} on ${m.created_at.slice(0, 10)}: ` +
              `${m.entities.length} entities${byType.length > 0 ? ` (${byType.join(", ")})` : ""}, ` +
              `${m.svo_triples.length} relationships and ${m.topics.length} topics were extracted; ` +
              `the tone is ${m.tone.label} and the quality score ${m.quality_score}. Summary: ${m.summary}`,
            key_reasons: reasons
          },
          audit: {
            verification_mode: "cryptographic" as const,
            reproducible: reproduced,
            pipeline: m.pipeline,
            semantic_hash: m.semantic_hash,
            quality_factors: quality.factors
          }
        }
      })

    return { match, explain }
  })
