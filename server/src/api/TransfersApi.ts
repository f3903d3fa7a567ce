import { InvalidRequest, Transfers, Unavailable } from "@umo/memory"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "./Authentication.js"
import { PayloadTooLarge } from "./Errors.js"
import { jsonQueryFields } from "./MemoriesApi.js"
import { SchemaErrors } from "./SchemaErrors.js"
import { Envelope } from "./Schemas.js"

/** `GET /v1/export`: the export's request, its JSON-valued selection fields as JSON text. */
export const ExportQuery = Schema.Struct({ ...Transfers.ExportRequest.fields, ...jsonQueryFields })

/** Largest import body: an export of 100,000 memories with their vectors is about 1 GB. */
export const importLimit = "4 GiB"

/** Memories in and out: an export as JSON Lines, and an import of UMO's or Mem0's. */
export class TransfersApi extends HttpApiGroup.make("transfers")
  .add(
    HttpApiEndpoint.get("export", "/v1/export", {
      query: ExportQuery,
      success: HttpApiSchema.StreamNdjson({ schema: Transfers.ExportLine, maxElementBytes: "16 MiB" }),
      error: [InvalidRequest, Unavailable]
    })
      .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
      .annotate(
        OpenApi.Description,
        "The account's memories as JSON Lines, streamed: a header (`kind: umo-export`: when, the account, the " +
          "embedder, and the signing keys every proof in it verifies against), one line per memory in capture " +
          "order (`kind: memory`: content, scope, metadata, timestamp, supersessions, hashes and signed chain " +
          "entries; its vectors with `embeddings=true`), and a last line counting them (`kind: end`), so a file " +
          "cut short is known for one. Superseded memories are included unless `include_superseded=false`; the " +
          "selection fields narrow it as in `GET /v1/memories`. A cut export resumes with `after_id`, the umo_id " +
          "of the last memory written."
      ),
    HttpApiEndpoint.post("import", "/v1/import", {
      query: Transfers.ImportRequest,
      payload: HttpApiSchema.StreamUint8Array({
        contentType: ["application/x-ndjson", "application/jsonl", "application/json", "text/plain"],
        maxBytes: importLimit
      }),
      success: Envelope(Transfers.ImportSummary),
      error: [InvalidRequest, PayloadTooLarge, Unavailable]
    })
      .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
      .annotate(
        OpenApi.Description,
        "Imports memories, read as the body arrives: an export of UMO (`GET /v1/export`; each memory's proof " +
          "is checked against the export's signing keys) or Mem0's (the JSON of `get_all` or of its export, or " +
          "one memory a line: `memory`, `user_id`, `agent_id`, `run_id`, `metadata`, `created_at`). Each memory " +
          "is captured anew and keeps where it came from (`imported_from`: the original's id and capture time); " +
          "an original already imported is not stored again, so an interrupted import is simply run again. The " +
          "originals' supersessions are restored between their copies. A line that is not a memory, or whose " +
          "proof fails, is reported with its line number and skipped, or stops the import (`on_error=stop`); the " +
          "summary says what was imported, what failed and whether the input ended as an export ends."
      )
  )
  .middleware(Authentication)
  .middleware(SchemaErrors) {}
