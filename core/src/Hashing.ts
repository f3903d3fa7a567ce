import { createHash } from "node:crypto"
import { canonicalJson } from "./CanonicalJson.js"
import type { Entity, PluginVersion, SvoTriple, Tone, Topic } from "./Umo.js"

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (or of raw bytes). */
export const sha256Hex = (data: string | Uint8Array): string =>
  createHash("sha256").update(data).digest("hex")

/** `content_hash`: SHA-256 of the normalized content, so a caller can recompute it from `content_text`. */
export const contentHash = (normalizedContent: string): string => sha256Hex(normalizedContent)

/** What the semantic hash covers: everything the pipeline extracted, and the pipeline that did it. */
export interface SemanticFields {
  readonly summary: string
  readonly entities: ReadonlyArray<Entity>
  readonly svo_triples: ReadonlyArray<SvoTriple>
  readonly topics: ReadonlyArray<Topic>
  readonly tone: Tone
  readonly language: string
  readonly quality_score: number
  readonly extensions: Readonly<Record<string, unknown>>
  readonly pipeline: ReadonlyArray<PluginVersion>
}

/**
 * `semantic_hash`: SHA-256 of the canonical JSON of the extraction plus the pipeline version.
 * Embedding vectors are left out on purpose: floating-point results may differ across CPUs, while
 * the embedding model's identity is part of `pipeline`.
 */
export const semanticHash = (fields: SemanticFields): string =>
  sha256Hex(
    canonicalJson({
      summary: fields.summary,
      entities: fields.entities,
      svo_triples: fields.svo_triples,
      topics: fields.topics,
      tone: fields.tone,
      language: fields.language,
      quality_score: fields.quality_score,
      extensions: fields.extensions,
      pipeline: fields.pipeline
    })
  )
