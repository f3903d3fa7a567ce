/**
 * Memories in and out: what an export writes and an import reads, as JSON Lines.
 *
 * An export is a header (`kind: "umo-export"`: when, which account, which embedder, and the signing
 * keys every proof in it verifies against), one line per memory in capture order (`kind:
 * "memory"`: its content, scope, metadata, time, supersessions, hashes and signed chain entries,
 * and — when asked — its vectors), and a last line (`kind: "end"`) counting them, so a file cut
 * short is known for one. An import reads that format, or Mem0's export (its `get_all` JSON, or
 * one memory a line); see `Import`.
 * @module
 */
import { LedgerEntry, Metadata, ScopeFields } from "@umo/core"
import { Schema } from "effect"
import { MemoryId, Source } from "./Fields.js"
import { SelectionFields } from "./Filters.js"
import { ImportedFrom, SigningKeys } from "./Results.js"

/** The account's memories to export: the selection fields, superseded ones included unless said. */
export const ExportRequest = Schema.Struct({
  source: Schema.optional(Source),
  ...SelectionFields,
  include_superseded: Schema.optional(Schema.Boolean).annotate({
    description: "also memories a newer one superseded (default true: an export keeps the history)"
  }),
  embeddings: Schema.optional(Schema.Boolean).annotate({
    description:
      "also each memory's chunk vectors (default false): an import into a store with the same embedder then embeds nothing"
  }),
  after_id: Schema.optional(MemoryId).annotate({
    description: "resume: only memories captured after this one (the umo_id of the last line written)"
  })
})
export type ExportRequest = typeof ExportRequest.Type

/** The first line of an export. */
export const ExportHeader = Schema.Struct({
  kind: Schema.Literal("umo-export"),
  version: Schema.Literal(1),
  exported_at: Schema.String,
  account: Schema.String,
  /** The embedder of the exporting store: vectors in the export are this model's. */
  embedding_model: Schema.String,
  /** The keys the exported proofs verify against, current first, with the records linking them. */
  signing_keys: SigningKeys
})
export type ExportHeader = typeof ExportHeader.Type

const Chunk = Schema.Struct({
  start: Schema.Number,
  end: Schema.Number,
  vector: Schema.Array(Schema.Number)
})

/** One memory of an export. */
export const ExportedMemory = Schema.Struct({
  kind: Schema.Literal("memory"),
  umo_id: Schema.String,
  /** The normalized text (`content_hash` is its SHA-256). */
  content: Schema.String,
  source: Schema.NullOr(Schema.String),
  ...ScopeFields,
  metadata: Metadata,
  timestamp: Schema.String,
  created_at: Schema.String,
  supersedes: Schema.Array(Schema.String),
  superseded_by: Schema.NullOr(Schema.String),
  content_hash: Schema.String,
  semantic_hash: Schema.String,
  record_hash: Schema.String,
  imported_from: Schema.NullOr(ImportedFrom),
  /** When it expires, whether it is immutable, and its categories (absent in exports made before them). */
  expires_at: Schema.optional(Schema.NullOr(Schema.String)),
  immutable: Schema.optional(Schema.Boolean),
  categories: Schema.optional(Schema.Array(Schema.String)),
  /** Its signed capture entry: with `signing_keys`, its proof. */
  entry: Schema.NullOr(LedgerEntry),
  /** The signed entry naming its successor, when it was superseded. */
  supersession: Schema.NullOr(LedgerEntry),
  embedding: Schema.optional(Schema.Struct({ model: Schema.String, chunks: Schema.Array(Chunk) }))
})
export type ExportedMemory = typeof ExportedMemory.Type

/** The last line: how many memories the export holds. */
export const ExportEnd = Schema.Struct({ kind: Schema.Literal("end"), memories: Schema.Number })

export const ExportLine = Schema.Union([ExportHeader, ExportedMemory, ExportEnd])
export type ExportLine = typeof ExportLine.Type

/** How an import reads its input. */
export const ImportRequest = Schema.Struct({
  format: Schema.optional(Schema.Literals(["auto", "umo", "mem0"])).annotate({
    description:
      "umo (an export of UMO), mem0 (Mem0's get_all or export JSON, or a memory a line); default auto"
  }),
  on_error: Schema.optional(Schema.Literals(["skip", "stop"])).annotate({
    description:
      "a malformed line, or a memory whose proof fails: reported and skipped (default), or the import stops there"
  }),
  infer_updates: Schema.optional(Schema.Boolean).annotate({
    description:
      "let the imported memories supersede the ones their facts outdate (default false: an export's own supersessions are kept as they were)"
  })
})
export type ImportRequest = typeof ImportRequest.Type

/** A line an import could not bring in, and why. */
export const ImportFailure = Schema.Struct({ line: Schema.Number, detail: Schema.String })

/** What an import did. */
export const ImportSummary = Schema.Struct({
  format: Schema.Literals(["umo", "mem0"]),
  /** Lines (or elements of a JSON document) read. */
  lines: Schema.Number,
  imported: Schema.Number,
  /** Already brought in by an earlier run (an import resumed): not stored again. */
  already_imported: Schema.Number,
  /** Supersessions of the originals restored between their copies. */
  linked: Schema.Number,
  /** Imported memories whose proof held against the export's keys. */
  verified: Schema.Number,
  failed: Schema.Number,
  /** The first 100 failures. */
  failures: Schema.Array(ImportFailure),
  /** Where the import stopped (`on_error: "stop"`), or null. */
  stopped_at: Schema.NullOr(ImportFailure),
  /** Whether the input ended as an export ends (its last line); a Mem0 document when it parsed whole. */
  complete: Schema.Boolean
})
export type ImportSummary = typeof ImportSummary.Type
