/**
 * What an import brings in, read from one value of its input: an exported UMO memory (its proof
 * checked against the export's signing keys) or a Mem0 memory, as a capture request with its
 * origin, the originals it supersedes or is superseded by, and — when the export carries vectors
 * of the importing store's embedder — the vectors of its chunks.
 * @module
 */
import { type ImportedFrom, type PinnedKeys, verifyProof } from "@umo/core"
import { Result, Schema } from "effect"
import { describeIssue } from "../Errors.js"
import { parseTimestamp } from "../Fields.js"
import { CaptureRequest } from "../Requests.js"
import { ExportedMemory, ExportHeader } from "../Transfers.js"

/** One memory to import. */
export interface ImportItem {
  readonly line: number
  /** Its original, as `memory_origins` keys it: `umo:<id>`, `mem0:<id>`. */
  readonly origin: string
  readonly request: CaptureRequest
  /** The originals it superseded, and the one that superseded it (as origins). */
  readonly supersedes: ReadonlyArray<string>
  readonly supersededBy: string | null
  readonly importedFrom: ImportedFrom
  /** Chunk text to vector, when the export carries vectors of the importing store's embedder. */
  readonly vectors?: ReadonlyMap<string, ReadonlyArray<number>> | undefined
}

/** A value that is not a memory to import, and why (the line is reported). */
export interface ItemError {
  readonly line: number
  readonly detail: string
}

const decodeCapture = Schema.decodeUnknownResult(CaptureRequest)
// A field an export of UMO does not write is refused with its line, never dropped: the line is
// not what an export wrote, and what it meant by the field would be lost.
const decodeExported = (value: unknown) =>
  Schema.decodeUnknownResult(ExportedMemory)(value, { onExcessProperty: "error" })
const decodeHeader = Schema.decodeUnknownResult(ExportHeader)

/** The capture request of an imported memory, checked as a capture is, or why it is not one. */
const captureOf = (fields: Record<string, unknown>, line: number): CaptureRequest | ItemError => {
  const decoded = decodeCapture(
    Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null))
  )
  return Result.isSuccess(decoded)
    ? decoded.success
    : { line, detail: describeIssue(decoded.failure.issue, "not a memory UMO can store: ") }
}

/** The header of an export of UMO, or why the value is not one. */
export const readHeader = (value: unknown, line: number): ExportHeader | ItemError => {
  const decoded = decodeHeader(value)
  return Result.isSuccess(decoded)
    ? decoded.success
    : { line, detail: describeIssue(decoded.failure.issue, "not the header of a UMO export: ") }
}

/** One exported memory, its proof checked against the export's keys (`trusted`). */
export const readExported = (
  value: unknown,
  line: number,
  header: ExportHeader,
  trusted: PinnedKeys,
  embeddingModel: string
): ImportItem | ItemError => {
  const decoded = decodeExported(value)
  if (Result.isFailure(decoded))
    return { line, detail: describeIssue(decoded.failure.issue, "not a memory of a UMO export: ") }
  const m = decoded.success
  const verified = verifyProof(
    {
      umo_id: m.umo_id,
      content_hash: m.content_hash,
      semantic_hash: m.semantic_hash,
      entry: m.entry,
      superseded_by: m.superseded_by,
      supersession: m.supersession,
      rotations: header.signing_keys.rotations
    },
    trusted,
    m.content
  )
  if (!verified)
    return {
      line,
      detail: `memory ${m.umo_id}: its proof does not verify against the export's signing keys (changed since it was exported?)`
    }
  const request = captureOf(
    {
      content: m.content,
      source: m.source,
      timestamp: m.timestamp,
      user_id: m.user_id,
      agent_id: m.agent_id,
      session_id: m.session_id,
      metadata: Object.keys(m.metadata).length === 0 ? undefined : m.metadata,
      expires_at: m.expires_at,
      immutable: m.immutable === true ? true : undefined,
      // Filed as it was where it came from (an empty list: as the account files it now).
      categories: m.categories === undefined || m.categories.length === 0 ? undefined : m.categories
    },
    line
  )
  if ("detail" in request) return request
  const vectors =
    m.embedding !== undefined && m.embedding.model === embeddingModel
      ? new Map(m.embedding.chunks.map((c) => [m.content.slice(c.start, c.end), c.vector]))
      : undefined
  return {
    line,
    origin: `umo:${m.umo_id}`,
    request,
    supersedes: m.supersedes.map((id) => `umo:${id}`),
    supersededBy: m.superseded_by === null ? null : `umo:${m.superseded_by}`,
    // A memory imported before keeps its first origin: where it was captured.
    importedFrom: m.imported_from ?? {
      format: "umo",
      id: m.umo_id,
      created_at: m.created_at,
      verified: true
    },
    vectors
  }
}

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined)

/**
 * One memory of Mem0 (`get_all`, its export, or a line of either): `memory` (or `text`,
 * `content`), `id`, `user_id`, `agent_id`, `run_id` (its session), `metadata`, `categories` (kept
 * as the `categories` metadata key when the metadata has none) and `created_at` (the memory's time).
 */
export const readMem0 = (value: unknown, line: number): ImportItem | ItemError => {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { line, detail: "not a Mem0 memory: expected an object with `id` and `memory`" }
  const m = value as Record<string, unknown>
  const id = text(m["id"])
  const content = text(m["memory"]) ?? text(m["text"]) ?? text(m["content"])
  if (id === undefined || content === undefined)
    return {
      line,
      detail: "not a Mem0 memory: it needs an `id` (to be imported once) and its text as `memory`"
    }
  const metadata = m["metadata"] === null || m["metadata"] === undefined ? {} : m["metadata"]
  const categories = m["categories"]
  const withCategories =
    typeof metadata === "object" &&
    !Array.isArray(metadata) &&
    Array.isArray(categories) &&
    categories.length > 0 &&
    !("categories" in metadata)
      ? { ...metadata, categories }
      : metadata
  const created = text(m["created_at"])
  const request = captureOf(
    {
      content,
      // A time UMO cannot read (no offset, say) is left out: the memory's time is then the import's.
      timestamp: created !== undefined && parseTimestamp(created) !== undefined ? created : undefined,
      user_id: text(m["user_id"]),
      agent_id: text(m["agent_id"]),
      session_id: text(m["run_id"]) ?? text(m["session_id"]),
      metadata:
        typeof withCategories === "object" && Object.keys(withCategories as object).length === 0
          ? undefined
          : withCategories
    },
    line
  )
  if ("detail" in request) return request
  return {
    line,
    origin: `mem0:${id}`,
    request,
    supersedes: [],
    supersededBy: null,
    importedFrom: { format: "mem0", id, created_at: created ?? null, verified: null }
  }
}

/** Whether a value opens an export of UMO. */
export const isExportHeader = (value: unknown) =>
  typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "umo-export"
