/**
 * Memories out and in as MCP tools: `export_memories` gives a page of the account's export (JSON
 * Lines, see `Transfers` of `@umo/memory`) — a tool result is one message, so an agent reads the
 * export a page at a time and continues from `next_after_id` — and `import_memories` brings in an
 * export of UMO or of Mem0 given as text. Larger files go through `umo export` / `umo import` or
 * the HTTP API (`GET /v1/export`, `POST /v1/import`), which stream.
 * @module
 */
import { Count, InvalidRequest, Transfers } from "@umo/memory"
import { Effect, Schema, Stream } from "effect"
import { decodeArguments, type MemoryTool, reads, tool } from "./ToolSchemas.js"

/** Memories an export page holds at most, and by default. */
const maxPage = 1_000
const defaultPage = 200

/** The longest `data` an import takes: a larger file is for `umo import` or `POST /v1/import`. */
const maxImportCharacters = 5_000_000

/** The export's selection without `embeddings`: vectors are of no use to an agent, and large. */
const { embeddings: _embeddings, ...exportFields } = Transfers.ExportRequest.fields
const ExportArguments = Schema.Struct({
  ...exportFields,
  max_memories: Schema.optional(Count(1, maxPage)).annotate({
    description: `memories in this page: 1 to ${maxPage.toLocaleString("en")}; default ${defaultPage}`
  })
})

/** A page of an export. */
const ExportPage = Schema.Struct({
  lines: Schema.Array(Transfers.ExportLine).annotate({
    description:
      "the header, the page's memories in capture order, and the end line when the export is complete"
  }),
  /** The memory lines in `lines`. */
  memories: Schema.Number,
  /** Whether the export ends in this page (its end line is the last of `lines`). */
  complete: Schema.Boolean,
  /** When more remain: the `after_id` to call again with (the same selection otherwise), else null. */
  next_after_id: Schema.NullOr(Schema.String)
})
type ExportPage = typeof ExportPage.Type

const ImportArguments = Schema.Struct({
  data: Schema.String.check(
    Schema.isMaxCodePoints(maxImportCharacters, {
      message: `must be at most ${maxImportCharacters.toLocaleString("en")} characters (import a larger file with \`umo import\` or POST /v1/import)`
    }),
    Schema.isPattern(/\S/, { message: "must hold the JSON of an export (UMO's lines, or Mem0's)" })
  ).annotate({
    description:
      `the export as text, at most ${maxImportCharacters.toLocaleString("en")} characters: the JSON Lines of a UMO ` +
      "export (export_memories' text, or `umo export`'s file), or Mem0's get_all JSON, or one Mem0 memory a line"
  }),
  ...Transfers.ImportRequest.fields
})

const decodeExport = decodeArguments(ExportArguments)
const decodeImport = decodeArguments(ImportArguments)

const counted = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`

/** The first failures of an import, with their line numbers, on one line. */
const failuresOf = (summary: Transfers.ImportSummary) =>
  summary.failures
    .slice(0, 3)
    .map(({ line, detail }) => `line ${line}: ${detail.replace(/\s+/g, " ").slice(0, 200)}`)
    .join("; ") + (summary.failed > 3 ? `; and ${summary.failed - 3} more` : "")

const summaryText = (s: Transfers.ImportSummary) =>
  `Imported ${counted(s.imported, "memory", "memories")} from a ${s.format === "umo" ? "UMO" : "Mem0"} export` +
  (s.format === "umo" ? ` (${s.verified} with their proofs verified)` : "") +
  `; ${s.already_imported} already imported; ${s.failed} failed${s.failed > 0 ? ` (${failuresOf(s)})` : ""}.` +
  (s.stopped_at === null ? "" : ` Stopped at line ${s.stopped_at.line}.`) +
  (s.complete
    ? ""
    : s.format === "umo"
      ? " The input has no end line: an export page, or an export cut short."
      : " The JSON document did not close: it was cut short.")

/** The tools that move memories out of and into the account. */
export const transferTools: ReadonlyArray<MemoryTool> = [
  tool({
    name: "export_memories",
    title: "Export memories",
    description:
      "Export the user's memories as JSON Lines, a page at a time: a header line (kind 'umo-export': the account, " +
      "the embedder and the public keys every memory's proof verifies against), one line per memory in capture " +
      "order (kind 'memory': its text, scope, metadata, times, supersessions, hashes and signed ledger entries; no " +
      "vectors), and the end line (kind 'end') once the export is complete. Narrow like list_memories (`user_id`, " +
      "`agent_id`, `session_id`, `source`, `metadata`, `after`, `before`, `filters`); superseded memories are included " +
      `unless \`include_superseded\` is false. A page holds at most \`max_memories\` (1 to ${maxPage.toLocaleString("en")}, ` +
      `default ${defaultPage}): when more remain, \`next_after_id\` says so — call again with the same arguments and ` +
      "`after_id` set to it. Each page's text can be given to import_memories as it is.",
    input: ExportArguments,
    output: ExportPage,
    annotations: reads,
    call: (memory, args) =>
      Effect.gen(function* () {
        const { max_memories: max = defaultPage } = yield* decodeExport(args)
        const { max_memories: _max, ...request } = args
        const stream = yield* memory.exportMemories({ ...request, embeddings: false } as never)
        // The header, `max` memories and one line more — the end, or a memory that says more remain:
        // the rest of the export is never read.
        const lines = yield* Stream.runCollect(Stream.take(stream, max + 2))
        const last = lines[max]
        const more = lines[max + 1]?.kind === "memory" && last?.kind === "memory"
        const page = more ? lines.slice(0, max + 1) : lines
        return {
          lines: page,
          memories: page.filter((line) => line.kind === "memory").length,
          complete: !more,
          next_after_id: more && last?.kind === "memory" ? last.umo_id : null
        } satisfies ExportPage
      }),
    text: (r) => [
      r.lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
      r.next_after_id === null
        ? `The export is complete: ${counted(r.memories, "memory", "memories")} in this page.`
        : `${counted(r.memories, "memory", "memories")} in this page, and more remain: call export_memories again ` +
          `with the same arguments and after_id "${r.next_after_id}".`
    ]
  }),
  tool({
    name: "import_memories",
    title: "Import memories",
    description:
      "Bring memories exported elsewhere into the user's memory: `data` is the JSON Lines of a UMO export (the text " +
      "of export_memories, or a file of `umo export`; each memory's proof is checked against the export's keys) or " +
      `Mem0's export (its get_all JSON, or one Mem0 memory a line), at most ${maxImportCharacters.toLocaleString("en")} ` +
      "characters — a larger file is for `umo import` or the HTTP API. Each memory is captured anew with its scope, " +
      "metadata, time and supersessions; one imported before is not stored again, so importing the same data twice, " +
      "or page after page, is safe. `format`: auto (default), umo or mem0; `on_error`: skip a bad line and go on " +
      "(default) or stop there; `infer_updates`: let the imported memories supersede older ones they outdate " +
      "(default false). Returns how many were imported, already imported and failed, with the failed lines' numbers " +
      "and why; when nothing could be imported, a tool error saying why.",
    input: ImportArguments,
    output: Transfers.ImportSummary,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (memory, args) =>
      Effect.gen(function* () {
        const { data } = yield* decodeImport(args)
        const { data: _data, ...request } = args
        const summary = yield* memory.importMemories(Stream.make(data), request as never)
        if (summary.imported + summary.already_imported === 0 && summary.failed > 0)
          return yield* Effect.fail(
            new InvalidRequest({
              detail: `nothing was imported: ${counted(summary.failed, "line", "lines")} failed (${failuresOf(summary)})`
            })
          )
        return summary
      }),
    text: summaryText
  })
]
