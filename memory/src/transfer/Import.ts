/**
 * Memories in: an export of UMO (its proofs checked against its signing keys) or Mem0's, read as it
 * arrives (`JsonValues`), 50 memories at a time. Each memory is captured anew through the pipeline —
 * with the export's vectors when they are the store's embedder's — and stored with its origin
 * (`memory_origins`) in the same transaction, so an import run again, after an interruption or
 * not, stores nothing twice. The originals' supersessions are restored between their copies as
 * soon as both are in. A line that is no memory, or whose proof fails, is counted and reported
 * with its line number, then skipped or the import stops there (`on_error`); the summary says all.
 * @module
 */
import {
  type CaptureWrite,
  Embedder,
  type EmbedderShape,
  MemorySearch,
  MemoryStore,
  type Pipeline,
  type PipelineError,
  type StoreError
} from "@umo/core"
import { Effect, Result, Stream } from "effect"
import * as Categorizer from "../capture/Categorizer.js"
import { decodeRequest, storeUnavailable, type Unavailable } from "../Errors.js"
import { parseTimestamp } from "../Fields.js"
import { type ExportHeader, ImportRequest, type ImportSummary } from "../Transfers.js"
import * as Facts from "../updates/Facts.js"
import {
  type ImportItem,
  type ItemError,
  isExportHeader,
  readExported,
  readHeader,
  readMem0
} from "./ImportItems.js"
import { type JsonItem, JsonValuesReader } from "./JsonValues.js"

const decodeImport = decodeRequest(ImportRequest, "query string")

/** Memories stored per transaction. */
const batchSize = 50
/** Failures the summary lists. */
const listedFailures = 100

/** An embedder that answers the texts it was given vectors for, and asks the real one for the rest. */
const withVectors = (
  embedder: EmbedderShape,
  known: ReadonlyMap<string, ReadonlyArray<number>> | undefined
): EmbedderShape =>
  known === undefined || known.size === 0
    ? embedder
    : {
        ...embedder,
        embed: (texts) => {
          const missing = texts.filter((t) => !known.has(t))
          return Effect.map(
            missing.length === 0 ? Effect.succeed([]) : embedder.embed(missing),
            (embedded) => {
              let next = 0
              return texts.map((t) => known.get(t) ?? embedded[next++]!)
            }
          )
        }
      }

export const make = (pipeline: Pipeline.Pipeline<Embedder>) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    const store = yield* MemoryStore
    const search = yield* MemorySearch
    const facts = yield* Facts.make
    const categorizer = yield* Categorizer.make

    /** The pipeline's record of one item, or why it refused its content. */
    const capture = (item: ImportItem) =>
      pipeline
        .process({
          content: item.request.content,
          timestamp:
            item.request.timestamp === undefined ? undefined : parseTimestamp(item.request.timestamp),
          source: item.request.source ?? null,
          scope: {
            user_id: item.request.user_id ?? null,
            agent_id: item.request.agent_id ?? null,
            session_id: item.request.session_id ?? null
          },
          metadata: item.request.metadata ?? {}
        })
        .pipe(
          Effect.provideService(Embedder, withVectors(embedder, item.vectors)),
          Effect.map((umo) => Result.succeed(umo)),
          Effect.catch((error: PipelineError) =>
            error.reason === "InvalidInput" ? Effect.succeed(Result.fail(error.detail)) : Effect.die(error)
          )
        )

    /**
     * Imports memories, a stream of text or bytes (UTF-8) of JSON Lines or a JSON document.
     * `onProgress` hears the summary after each batch.
     */
    const importMemories = (
      accountId: string,
      input: Stream.Stream<Uint8Array | string, unknown>,
      options: unknown = {},
      onProgress: (summary: ImportSummary) => void = () => {}
    ) =>
      Effect.gen(function* () {
        const request = yield* decodeImport(options)
        const stopOnError = request.on_error === "stop"
        const inferUpdates = request.infer_updates ?? false
        const reader = new JsonValuesReader()
        const decoder = new TextDecoder()
        let format: "umo" | "mem0" | undefined = request.format === "auto" ? undefined : request.format
        let header: ExportHeader | undefined
        let ended = false
        const summary = {
          lines: 0,
          imported: 0,
          already_imported: 0,
          linked: 0,
          verified: 0,
          failed: 0,
          failures: [] as Array<{ line: number; detail: string }>,
          stopped_at: null as { line: number; detail: string } | null
        }
        const snapshot = (): ImportSummary => ({
          format: format ?? "mem0",
          ...summary,
          failures: [...summary.failures],
          complete: format === "umo" ? ended : reader.isDocument ? reader.documentComplete : true
        })
        const fail = ({ line, detail }: ItemError) => {
          summary.failed++
          if (summary.failures.length < listedFailures) summary.failures.push({ line, detail })
          if (stopOnError && summary.stopped_at === null) summary.stopped_at = { line, detail }
        }
        let pending: Array<ImportItem> = []

        /** One value of the input: the header, the end, a memory to import, or a failure. */
        const read = (item: JsonItem) => {
          if (summary.stopped_at !== null) return
          summary.lines++
          if ("error" in item) return fail({ line: item.line, detail: item.error })
          const { line, value } = item
          // A one-line document (`{"results": [...]}` on one line): its memories, one by one.
          const listed =
            typeof value === "object" && value !== null && !Array.isArray(value)
              ? ((value as Record<string, unknown>)["results"] ??
                (value as Record<string, unknown>)["memories"])
              : undefined
          if (Array.isArray(listed) && !isExportHeader(value)) {
            summary.lines--
            for (const element of listed) read({ line, value: element })
            return
          }
          format ??= isExportHeader(value) ? "umo" : "mem0"
          if (format === "mem0") {
            const memory = readMem0(value, line)
            return "detail" in memory ? fail(memory) : pending.push(memory)
          }
          if (isExportHeader(value)) {
            const read = readHeader(value, line)
            if ("detail" in read) return fail(read)
            header = read
            return
          }
          if ((value as { kind?: unknown }).kind === "end") {
            ended = true
            return
          }
          if (header === undefined)
            return fail({ line, detail: "a UMO export starts with its header line (kind: umo-export)" })
          const memory = readExported(value, line, header, header.signing_keys, embedder.model.id)
          return "detail" in memory ? fail(memory) : pending.push(memory)
        }

        /**
         * Stores the pending memories: those not brought in before, linked to the originals already
         * in. After a stop, those read before the line it stopped at are still stored.
         */
        const flush = (all: boolean) =>
          Effect.gen(function* () {
            while (pending.length >= (all ? 1 : batchSize)) {
              const stop = summary.stopped_at
              if (stop !== null) pending = pending.filter((item) => item.line < stop.line)
              if (pending.length === 0) break
              const batch = pending.slice(0, batchSize)
              pending = pending.slice(batchSize)
              yield* importBatch(accountId, batch, inferUpdates, summary, fail)
              onProgress(snapshot())
            }
          })

        // The input failing (a body cut off, over its size limit) ends reading, and is said; the
        // store failing ends the import with that failure.
        let cut = false
        const source = input.pipe(
          Stream.catchCause(() =>
            Stream.fromEffect(
              Effect.sync(() => {
                cut = true
                return ""
              })
            )
          )
        )
        yield* Stream.runForEachWhile(source, (chunk) =>
          Effect.gen(function* () {
            const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true })
            for (const item of reader.push(text)) read(item)
            yield* flush(false)
            return summary.stopped_at === null
          })
        )
        if (cut) fail({ line: summary.lines + 1, detail: "the input could not be read to its end" })
        if (summary.stopped_at === null)
          for (const item of [...reader.push(decoder.decode()), ...reader.end()]) read(item)
        yield* flush(true)
        // An empty or blank body imports nothing, and says so (`lines: 0`): any bytes are a valid
        // body by the API's contract, and a file that held no memory is an import of none.
        return snapshot()
      })

    /** One batch in one transaction; when that fails, each memory alone, so one bad line fails alone. */
    const importBatch = (
      accountId: string,
      batch: ReadonlyArray<ImportItem>,
      inferUpdates: boolean,
      summary: { imported: number; already_imported: number; linked: number; verified: number },
      fail: (error: ItemError) => void
    ): Effect.Effect<void, Unavailable> =>
      Effect.gen(function* () {
        const keys = [
          ...new Set(
            batch.flatMap((i) => [i.origin, ...i.supersedes, ...(i.supersededBy ? [i.supersededBy] : [])])
          )
        ]
        const known = new Map(yield* store.originsOf(accountId, keys).pipe(Effect.catch(storeUnavailable)))
        const fresh = batch.filter(
          (item, i) => !known.has(item.origin) && batch.findIndex((o) => o.origin === item.origin) === i
        )
        summary.already_imported += batch.length - fresh.length
        const records = yield* Effect.forEach(fresh, capture, { concurrency: "unbounded" })
        // Filed as the export says, else as the account files its captures now.
        const fileUnder = yield* Effect.flatMap(categorizer.listOf(accountId), categorizer.forList)
        const now = Date.now()
        // Links go to originals already in, in the order the export gives: each once, from its second end.
        const writes: Array<{ item: ImportItem; write: CaptureWrite; links: number }> = []
        for (const [i, item] of fresh.entries()) {
          const record = records[i]!
          if (Result.isFailure(record)) {
            fail({ line: item.line, detail: `not a memory UMO can store: ${record.failure}` })
            continue
          }
          const expiresAt = item.request.expires_at
          if (expiresAt !== undefined && Date.parse(expiresAt) <= now) {
            fail({
              line: item.line,
              detail: `memory expired at ${expiresAt}, before it was imported: not stored`
            })
            continue
          }
          const supersedes = item.supersedes.flatMap((origin) => known.get(origin) ?? [])
          const supersededBy = item.supersededBy === null ? undefined : known.get(item.supersededBy)
          known.set(item.origin, record.success.umo_id)
          writes.push({
            item,
            links: supersedes.length + (supersededBy === undefined ? 0 : 1),
            write: {
              umo: record.success,
              supersedes,
              facts: facts.imported(record.success),
              inferUpdates,
              supersededBy,
              origin: { key: item.origin, imported_from: item.importedFrom },
              expiresAt,
              immutable: item.request.immutable,
              categories: fileUnder(record.success, item.request.categories),
              // One equal to a current memory is that memory, unless a line of versions names it.
              ...(item.supersedes.length === 0 && item.supersededBy === null
                ? { dedupe: { timeGiven: item.request.timestamp !== undefined } }
                : {})
            }
          })
        }
        const stored = (done: typeof writes) => {
          summary.imported += done.length
          summary.linked += done.reduce((n, w) => n + w.links, 0)
          // Every memory of a UMO export had its proof checked (readExported refuses one that fails),
          // also one that came from Mem0 first and keeps that origin.
          summary.verified += done.filter((w) => w.item.origin.startsWith("umo:")).length
        }
        const together = yield* store
          .insertMany(
            accountId,
            writes.map((w) => w.write)
          )
          .pipe(Effect.result)
        if (Result.isSuccess(together)) {
          // The search applies them as they commit: a large import leaves the next search no backlog.
          yield* search.follow(accountId)
          return stored(writes)
        }
        yield* retryable(together.failure)
        for (const w of writes) {
          const alone = yield* store.insertMany(accountId, [w.write]).pipe(Effect.result)
          if (Result.isSuccess(alone)) {
            yield* search.follow(accountId)
            stored([w])
          } else {
            yield* retryable(alone.failure)
            fail({ line: w.item.line, detail: `could not be stored: ${alone.failure.detail}` })
          }
        }
      })

    /**
     * The database out of reach, or the store moved to another embedding model meanwhile, ends the
     * import (safe to run again: what is in is known by its origin); any other failure is the line's.
     */
    const retryable = (error: StoreError) =>
      error.reason === "Unavailable" ||
      error.reason === "SigningKeyRetired" ||
      error.reason === "EmbedderSwitched"
        ? storeUnavailable(error)
        : Effect.void

    return { importMemories }
  })
