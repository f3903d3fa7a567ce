import {
  type CaptureReceipt,
  type CaptureWrite,
  type Category,
  defaultCategories,
  Embedder,
  FileParser,
  isUmoId,
  MemoryStore,
  type Pipeline,
  type PipelineError,
  sha256Hex,
  storableText,
  type Umo
} from "@umo/core"
import { Effect, Result, Schema } from "effect"
import {
  decodeRequest,
  describeIssue,
  InvalidRequest,
  type MemoryNotFound,
  memoryNotFound,
  pipelineFailure,
  statusOf,
  storeFailure,
  Unavailable,
  UnsupportedFile
} from "../Errors.js"
import { IdempotencyKey, parseTimestamp, Source, uploadLimitBytes } from "../Fields.js"
import type { CaptureOptions, FileToCapture } from "../Memory.js"
import { BatchRequest, CaptureRequest, LifetimeFields, ScopeAndMetadata, UpdateFields } from "../Requests.js"
import type { BatchResultItem, Captured, Uploaded } from "../Results.js"
import * as Facts from "../updates/Facts.js"
import * as Judging from "../updates/Judging.js"
import * as Categorizer from "./Categorizer.js"
import * as Idempotency from "./Idempotency.js"

/** A capture's answer: the memory stored, or the current one it repeated (`duplicate_of`). */
const captured = (
  umo: Umo,
  { receipt, supersedes, superseded_by, duplicate_of }: CaptureReceipt,
  warning: string | null
): Captured => ({
  umo_id: duplicate_of?.umo_id ?? umo.umo_id,
  quality_score: duplicate_of?.quality_score ?? umo.quality_score,
  created_at: duplicate_of?.created_at ?? umo.created_at,
  content_hash: umo.content_hash,
  receipt,
  supersedes,
  superseded_by,
  ...(warning === null ? {} : { warnings: [warning] }),
  ...(duplicate_of === undefined ? {} : { duplicate_of: duplicate_of.umo_id })
})

/** What a file capture takes besides the file: the capture request's fields other than its text. */
const UploadFields = Schema.Struct({
  source: Schema.optional(Source),
  ...ScopeAndMetadata,
  ...UpdateFields,
  ...LifetimeFields
})
type UploadFields = typeof UploadFields.Type

const decodeCapture = decodeRequest(CaptureRequest, "request body")
const decodeBatch = decodeRequest(BatchRequest, "request body")
const decodeKey = decodeRequest(
  Schema.Struct({ "idempotency-key": Schema.optional(IdempotencyKey) }),
  "headers"
)
const decodeUploadFields = decodeRequest(UploadFields, "request body")
const decodeItem = Schema.decodeUnknownResult(CaptureRequest)

const captureFields = Object.keys(CaptureRequest.fields)

/**
 * A batch whose items name a field a capture does not take (`userid` for `user_id`) is refused
 * whole, as `/v1/process` refuses it: stored without that field, an item would lose its scope or
 * tags silently. Other faults stay the item's own (reported in its result, the rest stored).
 */
const unknownItemFields = (items: ReadonlyArray<unknown>): InvalidRequest | undefined => {
  const unknown = items.flatMap((item, index) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.keys(item)
          .filter((key) => !captureFields.includes(key))
          .map((key) => `items.${index}.${key}`)
      : []
  )
  if (unknown.length === 0) return undefined
  const named = unknown.slice(0, 5).join(", ") + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : "")
  return new InvalidRequest({
    detail: `invalid request body: ${named}: Expected no excess property (an item takes ${captureFields.join(", ")}); nothing was stored`
  })
}

/** The pipeline's input from a checked capture request (its timestamp is known to parse). */
const pipelineInput = (
  request: Omit<UploadFields, "source"> & { readonly source?: string | null | undefined }
) => ({
  source: request.source ?? null,
  scope: {
    user_id: request.user_id ?? null,
    agent_id: request.agent_id ?? null,
    session_id: request.session_id ?? null
  },
  metadata: request.metadata ?? {}
})

/**
 * What identifies a capture for its idempotency key: its text, source and time, and the newer
 * fields only when given (so a key stored before they existed still matches its request).
 */
const fingerprinted = ({ content, source, timestamp, ...rest }: CaptureRequest) => ({
  content,
  source: source ?? null,
  timestamp: timestamp ?? null,
  ...rest
})

/**
 * A batch stored whole or not at all (the new versions of a change of many memories): its
 * operation (for the idempotency key) and how a refusal names the item at `index`.
 */
export interface WholeBatch {
  readonly operation: string
  readonly field: (index: number) => string
}

/** Why a batch item was refused: the status a capture of it alone would get, and why. */
interface Refusal {
  readonly status: number
  readonly detail: string
}
const refusal = (status: number, detail: string): Refusal => ({ status, detail })

/** A request's field refused in its words (see `expiryOf`). */
export const refusedIfFailed = <A>(result: Result.Result<A, string>) =>
  Result.isSuccess(result)
    ? Effect.succeed(result.success)
    : Effect.fail(new InvalidRequest({ detail: result.failure }))

export const immutable = (id: string) =>
  new InvalidRequest({
    detail: `memory ${id} is immutable: it cannot be updated or superseded (capture a new memory, or delete it)`
  })

/** The ids a request supersedes, as stored (ids are lowercase UUIDs). */
const supersededIds = (request: Pick<UploadFields, "supersedes">) => [
  ...new Set((request.supersedes ?? []).map((id) => id.toLowerCase()))
]

/** What a capture stores of its lifetime: when it expires (absent: never) and whether it is immutable. */
interface Lifetime {
  readonly expiresAt?: string | undefined
  readonly immutable?: boolean | undefined
}

/** A capture names its categories or brings a list to choose them from, not both. */
const categoryChoice = (request: Pick<CaptureRequest, "categories" | "custom_categories">) =>
  request.categories !== undefined && request.custom_categories !== undefined
    ? Result.fail("invalid request body: categories, custom_categories: give one of them, not both")
    : Result.succeed(request)

/**
 * When a memory given `expires_at` or `ttl` expires, as of `now`, or why the request is refused:
 * both given, or an instant not in the future (stored, it would be gone before anyone read it).
 */
export const expiryOf = (
  request: { readonly expires_at?: string | null | undefined; readonly ttl?: number | undefined },
  now: number
): Result.Result<string | null | undefined, string> => {
  if (request.expires_at !== undefined && request.ttl !== undefined)
    return Result.fail("invalid request body: expires_at, ttl: give one of them, not both")
  if (request.ttl !== undefined) return Result.succeed(new Date(now + request.ttl * 1000).toISOString())
  if (request.expires_at == null) return Result.succeed(request.expires_at)
  const at = parseTimestamp(request.expires_at)!.getTime()
  return at > now
    ? Result.succeed(new Date(at).toISOString())
    : Result.fail(
        `invalid request body: expires_at: must be in the future (got ${request.expires_at}, it is now ${new Date(now).toISOString()})`
      )
}

const lifetimeOf = (request: Pick<UploadFields, "expires_at" | "ttl" | "immutable">, now: number) =>
  Result.map(
    expiryOf(request, now),
    (expiresAt): Lifetime => ({ expiresAt: expiresAt ?? undefined, immutable: request.immutable })
  )

/**
 * The three captures: one text, a batch, a file. Each runs the pipeline, then stores what it made
 * through `Idempotency.once` (one transaction, the answer kept under the idempotency key).
 */
export const make = (pipeline: Pipeline.Pipeline<Embedder>) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    const files = yield* FileParser
    const store = yield* MemoryStore
    const { once } = yield* Idempotency.make
    const inferByDefault = yield* Facts.inferUpdatesConfig

    const run = (input: Parameters<typeof pipeline.process>[0]) =>
      pipeline.process(input).pipe(Effect.provideService(Embedder, embedder))

    const judging = yield* Judging.make
    const facts = yield* Facts.make
    const categorizer = yield* Categorizer.make
    /** How the captures of a request file their memories: its own list, else the account's. */
    const filing = (accountId: string, own: ReadonlyArray<Category> | undefined) =>
      Effect.flatMap(
        own === undefined ? categorizer.listOf(accountId) : Effect.succeed(own),
        categorizer.forList
      )
    /** What the store is handed for a memory: it, what it supersedes, and the facts it states. */
    const writeOf = (
      request: Pick<UploadFields, "supersedes" | "infer_updates" | "dedupe"> & {
        readonly timestamp?: string | undefined
      },
      umo: Umo,
      lifetime: Lifetime,
      categories: ReadonlyArray<string>
    ): Effect.Effect<CaptureWrite> =>
      Effect.map(facts.captured(umo), (stated) => {
        const infer = request.infer_updates ?? inferByDefault
        // The fact rules decide what they read, in the store (bench:judge: precision 0.9–1.0 on the
        // read sets); the update judge, when there is one, adds what they miss.
        const supersedes = supersededIds(request)
        return {
          umo,
          supersedes,
          facts: stated,
          inferUpdates: infer,
          judge: infer && judging.judging,
          ...lifetime,
          categories,
          // A capture naming what it replaces is a new version, never a repeat; one with a
          // lifetime of its own is not answered by a memory without it.
          ...(request.dedupe === false ||
          supersedes.length > 0 ||
          lifetime.expiresAt !== undefined ||
          lifetime.immutable === true
            ? {}
            : { dedupe: { timeGiven: request.timestamp !== undefined } })
        }
      })

    /** The writes with what the update judge decided of them, and then stored (see `Judging`). */
    const judgedSave = <A>(
      accountId: string,
      writes: ReadonlyArray<CaptureWrite>,
      save: Idempotency.Save<A>,
      answer: (receipts: ReadonlyArray<CaptureReceipt>, warning: string | null) => A
    ) =>
      Effect.flatMap(judging.decide(accountId, writes), (judged) =>
        save(judged.writes, (receipts) => answer(receipts, judged.warning))
      )

    /**
     * Checks, before any work, that the memories a capture supersedes are the account's and
     * current (`claimed`: ids earlier items of a batch supersede). The store checks again under
     * its lock, so a race still stores nothing.
     */
    const supersedable = (
      accountId: string,
      ids: ReadonlyArray<string>,
      claimed: ReadonlySet<string> = new Set()
    ): Effect.Effect<void, MemoryNotFound | InvalidRequest | Unavailable> =>
      Effect.gen(function* () {
        if (ids.length === 0) return
        const malformed = ids.find((id) => !isUmoId(id))
        if (malformed !== undefined) return yield* memoryNotFound(malformed)
        const found = new Map(
          (yield* store.getMany(accountId, ids).pipe(Effect.catch(storeFailure))).map((m) => [m.umo_id, m])
        )
        const now = Date.now()
        for (const id of ids) {
          const memory = found.get(id)
          if (memory === undefined || (memory.expires_at !== null && Date.parse(memory.expires_at) <= now))
            return yield* memoryNotFound(id)
          if (memory.immutable) return yield* immutable(id)
          if (memory.superseded_by !== null || claimed.has(id))
            return yield* new InvalidRequest({
              detail: `invalid request body: supersedes: memory ${id} is already superseded${memory.superseded_by === null ? " (by an earlier item)" : ` by ${memory.superseded_by}`}; supersede that one instead`
            })
        }
      })

    const keyOf = (options: CaptureOptions | undefined) =>
      Effect.map(
        decodeKey({ "idempotency-key": options?.idempotencyKey }),
        (headers) => headers["idempotency-key"]
      )

    const capture = (accountId: string, input: unknown, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const request = yield* decodeCapture(input)
        const lifetime = yield* refusedIfFailed(lifetimeOf(request, Date.now()))
        yield* refusedIfFailed(categoryChoice(request))
        const key = yield* keyOf(options)
        return yield* once<Captured, MemoryNotFound>(
          accountId,
          key,
          () => Idempotency.fingerprint("capture", fingerprinted(request)),
          (save) =>
            Effect.gen(function* () {
              yield* supersedable(accountId, supersededIds(request))
              const umo = yield* run({
                content: request.content,
                timestamp: request.timestamp === undefined ? undefined : parseTimestamp(request.timestamp),
                ...pipelineInput(request)
              }).pipe(Effect.catch(pipelineFailure))
              const fileUnder = yield* filing(accountId, request.custom_categories)
              return yield* judgedSave(
                accountId,
                [yield* writeOf(request, umo, lifetime, fileUnder(umo, request.categories))],
                save,
                ([receipt], warning) => captured(umo, receipt!, warning)
              )
            })
        )
      })

    /**
     * Up to 100 items as one unit: each result in input order, an invalid item reported in its
     * result and the others stored together in one transaction — or, when the database fails, none
     * of them (Unavailable, safe to retry). The items run concurrently, so the Embedder answers all
     * their chunks together, in as few model calls as its batch size allows.
     */
    const batch = (accountId: string, input: unknown, options?: CaptureOptions, whole?: WholeBatch) =>
      Effect.gen(function* () {
        const { items } = yield* decodeBatch(input)
        const unknown = unknownItemFields(items)
        if (unknown !== undefined) return yield* unknown
        const key = yield* keyOf(options)
        return yield* once<{ readonly results: ReadonlyArray<BatchResultItem> }, InvalidRequest>(
          accountId,
          key,
          () => Idempotency.fingerprint(whole?.operation ?? "batch", items),
          (save) =>
            Effect.gen(function* () {
              // Each item checked: its request, or why it was refused. Supersessions are checked in
              // order, so two items cannot both supersede one memory.
              const claimed = new Set<string>()
              const checked: Array<Result.Result<CaptureRequest & { lifetime: Lifetime }, Refusal>> = []
              const now = Date.now()
              for (const item of items) {
                const decoded = decodeItem(item)
                if (Result.isFailure(decoded)) {
                  checked.push(
                    Result.fail(refusal(422, describeIssue(decoded.failure.issue, "invalid item: ")))
                  )
                  continue
                }
                const lifetime = lifetimeOf(decoded.success, now)
                if (Result.isFailure(lifetime)) {
                  checked.push(Result.fail(refusal(422, lifetime.failure)))
                  continue
                }
                const choice = categoryChoice(decoded.success)
                if (Result.isFailure(choice)) {
                  checked.push(Result.fail(refusal(422, choice.failure)))
                  continue
                }
                const ids = supersededIds(decoded.success)
                const refused = yield* supersedable(accountId, ids, claimed).pipe(
                  Effect.as(undefined),
                  Effect.catch((e) =>
                    e instanceof Unavailable ? Effect.fail(e) : Effect.succeed(refusal(statusOf(e), e.detail))
                  )
                )
                if (refused !== undefined) checked.push(Result.fail(refused))
                else {
                  for (const id of ids) claimed.add(id)
                  checked.push(Result.succeed({ ...decoded.success, lifetime: lifetime.success }))
                }
              }
              // The account's list read once for the batch; an item may bring its own.
              const accountList = yield* categorizer.listOf(accountId)
              // Each valid item: its write, or why the pipeline refused its content.
              const outcomes = yield* Effect.forEach(
                checked,
                (item): Effect.Effect<Result.Result<CaptureWrite, Refusal>> =>
                  Result.isFailure(item)
                    ? Effect.succeed(Result.fail(item.failure))
                    : run({
                        content: item.success.content,
                        timestamp:
                          item.success.timestamp === undefined
                            ? undefined
                            : parseTimestamp(item.success.timestamp),
                        ...pipelineInput(item.success)
                      }).pipe(
                        Effect.flatMap((umo) =>
                          Effect.gen(function* () {
                            const fileUnder = yield* categorizer.forList(
                              item.success.custom_categories ?? accountList
                            )
                            const categories = fileUnder(umo, item.success.categories)
                            return Result.succeed(
                              yield* writeOf(item.success, umo, item.success.lifetime, categories)
                            )
                          })
                        ),
                        Effect.catch((error: PipelineError) =>
                          error.reason === "InvalidInput"
                            ? Effect.succeed(Result.fail(refusal(422, error.detail)))
                            : Effect.die(error)
                        )
                      ),
                { concurrency: "unbounded" }
              )
              // A whole batch (a change of many memories) is stored whole or refused whole.
              const refused = outcomes.findIndex(Result.isFailure)
              if (whole !== undefined && refused >= 0)
                return yield* new InvalidRequest({
                  detail: `${whole.field(refused)}: ${(outcomes[refused] as Result.Failure<CaptureWrite, Refusal>).failure.detail.replace(/^invalid (request body|item): /, "")}; nothing was changed`
                })
              const writes = outcomes.flatMap((o) => (Result.isSuccess(o) ? [o.success] : []))
              return yield* judgedSave(accountId, writes, save, (receipts, warning) => {
                // The receipts are in the writes' order: the valid items' order.
                let next = 0
                return {
                  results: outcomes.map((outcome, index): BatchResultItem => {
                    if (Result.isFailure(outcome))
                      return { index, success: false, umo_id: null, error: outcome.failure }
                    const { created_at: _, ...stored } = captured(
                      outcome.success.umo,
                      receipts[next++]!,
                      warning
                    )
                    return { index, success: true, ...stored }
                  })
                }
              })
            })
        )
      })

    /**
     * Captures the text of a file (the bytes themselves are never stored). The file's text and name
     * enter here, so they are made storable here (see `storableText`).
     */
    const upload = (accountId: string, file: FileToCapture, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const { bytes: _bytes, filename: _filename, mediaType: _mediaType, ...given } = file
        const fields = yield* decodeUploadFields(given)
        const lifetime = yield* refusedIfFailed(lifetimeOf(fields, Date.now()))
        const { source, ...rest } = fields
        const key = yield* keyOf(options)
        if (file.bytes.length > uploadLimitBytes)
          return yield* new InvalidRequest({ detail: "the file is over the 20 MB upload limit" })
        return yield* once<Uploaded, UnsupportedFile | MemoryNotFound>(
          accountId,
          key,
          () =>
            Idempotency.fingerprint("upload", {
              filename: file.filename,
              mediaType: file.mediaType ?? null,
              source: source ?? null,
              bytes: sha256Hex(file.bytes),
              ...rest
            }),
          (save) =>
            Effect.gen(function* () {
              yield* supersedable(accountId, supersededIds(fields))
              const parsed = yield* files
                .parse({ filename: file.filename, mediaType: file.mediaType, bytes: file.bytes })
                .pipe(
                  Effect.catch((e) =>
                    e.reason === "UnsupportedType"
                      ? Effect.fail(new UnsupportedFile({ detail: e.detail }))
                      : Effect.fail(new InvalidRequest({ detail: e.detail }))
                  )
                )
              const umo = yield* run({
                content: storableText(parsed.text),
                ...pipelineInput(fields),
                source: storableText(source ?? `upload:${file.filename}`)
              }).pipe(Effect.catch(pipelineFailure))
              const fileUnder = yield* filing(accountId, undefined)
              return yield* judgedSave(
                accountId,
                [yield* writeOf(fields, umo, lifetime, fileUnder(umo))],
                save,
                ([receipt], warning): Uploaded => ({
                  ...captured(umo, receipt!, warning),
                  summary: umo.summary,
                  format: parsed.format,
                  characters: umo.content.length
                })
              )
            })
        )
      })

    /**
     * Embeds once what a first capture would otherwise wait for: the default categories'
     * descriptions and the slot sense's examples (on two cores with USE lite, 3 s and 2 s of the
     * first capture after start). Failures are the first capture's to meet again, not start-up's.
     */
    const warmUp = Effect.all(
      [
        categorizer.forList(defaultCategories),
        facts.captured({ content: "I moved to Lisbon last spring.", user_id: null, agent_id: null })
      ],
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.ignore)

    return { capture, batch, upload, warmUp }
  })
