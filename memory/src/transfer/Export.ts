/**
 * An account's memories out, as a stream of lines (see `Transfers`): the header, each selected
 * memory in capture order with its proof's entries (and vectors when asked), and the count. Pages
 * of 200 memories are read as the stream is consumed, so an account of 100,000 memories is never
 * held at once; a cut export resumes with `after_id`, the last memory written.
 * @module
 */
import { type Account, Embedder, MemoryStore, type ExportedMemory as Stored } from "@umo/core"
import { Clock, Effect, Option, Stream } from "effect"
import { decodeRequest, type InvalidRequest, storeUnavailable, type Unavailable } from "../Errors.js"
import { selectionOf } from "../Filters.js"
import type { SigningKeys } from "../Results.js"
import { type ExportedMemory, type ExportLine, ExportRequest } from "../Transfers.js"

const decodeExport = decodeRequest(ExportRequest, "query string")

/** Memories read a page at a time. */
const pageSize = 200

/** A stored memory as a line of the export. */
const lineOf = ({ memory: m, entry, supersession, chunks }: Stored, model: string): ExportedMemory => ({
  kind: "memory",
  umo_id: m.umo_id,
  content: m.content,
  source: m.source,
  user_id: m.user_id,
  agent_id: m.agent_id,
  session_id: m.session_id,
  metadata: m.metadata,
  timestamp: m.timestamp,
  created_at: m.created_at,
  supersedes: m.supersedes,
  superseded_by: m.superseded_by,
  content_hash: m.content_hash,
  semantic_hash: m.semantic_hash,
  record_hash: m.record_hash,
  imported_from: m.imported_from,
  expires_at: m.expires_at,
  immutable: m.immutable,
  categories: m.categories,
  entry,
  supersession,
  ...(chunks === undefined ? {} : { embedding: { model, chunks } })
})

export const make = (signingKeys: Effect.Effect<SigningKeys, Unavailable>) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const embedder = yield* Embedder

    /** The export's lines, read as they are consumed; a bad request fails before the first. */
    const exportMemories = (
      account: Account,
      input: unknown = {}
    ): Effect.Effect<Stream.Stream<ExportLine, Unavailable>, InvalidRequest | Unavailable> =>
      Effect.gen(function* () {
        const request = yield* decodeExport(input)
        const { filter } = selectionOf(request)
        const header: ExportLine = {
          kind: "umo-export",
          version: 1,
          exported_at: new Date(yield* Clock.currentTimeMillis).toISOString(),
          account: account.name,
          embedding_model: embedder.model.id,
          signing_keys: yield* signingKeys
        }
        let count = 0
        const memories = Stream.paginate(request.after_id ?? null, (after: string | null) =>
          store
            .exportPage(account.account_id, {
              afterId: after,
              limit: pageSize,
              filter,
              includeSuperseded: request.include_superseded ?? true,
              vectors: request.embeddings ?? false
            })
            .pipe(
              Effect.map((page) => {
                count += page.length
                const last = page.at(-1)?.memory.umo_id
                return [
                  page.map((item) => lineOf(item, embedder.model.id)),
                  page.length < pageSize || last === undefined ? Option.none() : Option.some(last)
                ] as const
              }),
              Effect.catch(storeUnavailable)
            )
        )
        return Stream.succeed(header).pipe(
          Stream.concat(memories),
          Stream.concat(Stream.fromEffect(Effect.sync((): ExportLine => ({ kind: "end", memories: count }))))
        )
      })

    return { exportMemories }
  })
