/**
 * Memories in and out (`exportMemories`, `importMemories`). The lines of an export keep the
 * service's field names: they are the file you write out and import again, and their entries are
 * signed as named. What an import did is a result like the others, camelCase with its `raw`.
 * @module
 */
import { APIError } from "./errors.js"
import { list, num, obj, optStr, type Raw, str } from "./fields.js"
import type { Jwk, KeyRotation, LedgerEntry } from "./signed.js"

/** Where an imported memory came from: the original's id and capture time, and whether its proof held. */
export interface ImportedFrom {
  readonly format: "umo" | "mem0"
  /** The original's id (its `umo_id`, or Mem0's `id`). */
  readonly id: string
  readonly createdAt: string | null
  /** Whether the original's proof held against the export's keys (null: it had none, as from Mem0). */
  readonly verified: boolean | null
}

/** A memory's `imported_from`, or null when it was captured here. */
export const importedFrom = (raw: Raw): ImportedFrom | null => {
  const from = raw.imported_from
  if (typeof from !== "object" || from === null) return null
  const origin = from as Raw
  return {
    format: str(origin, "format") as ImportedFrom["format"],
    id: str(origin, "id"),
    createdAt: optStr(origin, "created_at"),
    verified: typeof origin.verified === "boolean" ? origin.verified : null
  }
}

/** The first line of an export: when, which account, which embedder, and the keys its proofs verify against. */
export interface ExportHeader {
  readonly kind: "umo-export"
  readonly version: 1
  readonly exported_at: string
  readonly account: string
  /** The embedder of the exporting store: vectors in the export are this model's. */
  readonly embedding_model: string
  readonly signing_keys: { readonly keys: ReadonlyArray<Jwk>; readonly rotations: ReadonlyArray<KeyRotation> }
}

/** One memory of an export. */
export interface ExportedMemory {
  readonly kind: "memory"
  readonly umo_id: string
  /** The normalized text (`content_hash` is its SHA-256). */
  readonly content: string
  readonly source: string | null
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: Readonly<Record<string, string | number | boolean | null | ReadonlyArray<string>>>
  readonly timestamp: string
  readonly created_at: string
  readonly supersedes: ReadonlyArray<string>
  readonly superseded_by: string | null
  readonly content_hash: string
  readonly semantic_hash: string
  readonly record_hash: string
  readonly imported_from: {
    readonly format: "umo" | "mem0"
    readonly id: string
    readonly created_at: string | null
    readonly verified: boolean | null
  } | null
  /** Its signed capture entry: with the header's `signing_keys`, its proof. */
  readonly entry: LedgerEntry | null
  /** The signed entry naming its successor, when it was superseded. */
  readonly supersession: LedgerEntry | null
  /** With `embeddings: true`: its chunks' vectors. */
  readonly embedding?: {
    readonly model: string
    readonly chunks: ReadonlyArray<{
      readonly start: number
      readonly end: number
      readonly vector: ReadonlyArray<number>
    }>
  }
}

/** The last line of an export: how many memories it holds (an export without it was cut short). */
export interface ExportEnd {
  readonly kind: "end"
  readonly memories: number
}

/** One line of an export, in order: the header, each memory, the end. */
export type ExportLine = ExportHeader | ExportedMemory | ExportEnd

/** A line an import could not bring in, and why. */
export interface ImportFailure {
  readonly line: number
  readonly detail: string
}

const failureOf = (raw: Raw): ImportFailure => ({ line: num(raw, "line"), detail: str(raw, "detail") })

/** What `importMemories` did. */
export class ImportSummary {
  /** The format read: `umo` or `mem0`. */
  readonly format: "umo" | "mem0"
  /** Lines (or elements of a JSON document) read. */
  readonly lines: number
  readonly imported: number
  /** Already brought in by an earlier run (an import resumed): not stored again. */
  readonly alreadyImported: number
  /** Supersessions of the originals restored between their copies. */
  readonly linked: number
  /** Imported memories whose proof held against the export's keys. */
  readonly verified: number
  readonly failed: number
  /** The first 100 failures. */
  readonly failures: ReadonlyArray<ImportFailure>
  /** Where the import stopped (`onError: "stop"`), or null. */
  readonly stoppedAt: ImportFailure | null
  /** Whether the input ended as an export ends (its last line); a Mem0 document when it parsed whole. */
  readonly complete: boolean
  constructor(readonly raw: Raw) {
    this.format = str(raw, "format") as ImportSummary["format"]
    this.lines = num(raw, "lines")
    this.imported = num(raw, "imported")
    this.alreadyImported = num(raw, "already_imported")
    this.linked = num(raw, "linked")
    this.verified = num(raw, "verified")
    this.failed = num(raw, "failed")
    this.failures = list(raw, "failures").map(failureOf)
    this.stoppedAt =
      typeof raw.stopped_at === "object" && raw.stopped_at !== null ? failureOf(obj(raw, "stopped_at")) : null
    this.complete = raw.complete === true
  }
}

/**
 * The lines of an export from the text lines of its response, parsed one by one. An export that
 * ends before its last line was cut short (the connection, or the service, failed): that raises,
 * and `afterId` (the `umo_id` of the last memory line had) resumes it.
 */
export async function* exportLines(texts: AsyncIterable<string>): AsyncGenerator<ExportLine> {
  let ended = false
  let last: string | null = null
  for await (const text of texts) {
    let line: ExportLine
    try {
      line = JSON.parse(text) as ExportLine
    } catch {
      throw new APIError(`the export sent a line that is not JSON: ${text.slice(0, 200)}`)
    }
    if (line.kind === "memory") last = line.umo_id
    ended = line.kind === "end"
    yield line
  }
  if (!ended)
    throw new APIError(
      `the export ended before its last line${last === null ? "" : `: resume it with afterId ${last}`}`
    )
}
