/**
 * The Promise face of the memory service, for apps that do not use Effect:
 *
 * ```ts
 * import { openMemory } from "@umo/memory"
 * const umo = await openMemory({ dataDir: "./data" }) // or: new UMOClient() for a server
 * const { umoId } = await umo.capture("Lunch with Ana at Nopa on Friday.")
 * const answer = await umo.answer("Where did I have lunch?")
 * await umo.close()
 * ```
 *
 * Its verbs, arguments, results and errors are `@umo/client`'s (`UMOMemory`): a result is built
 * from the same wire object the server would send — encoded through the same schema — and a
 * failure is the error `UMOClient` raises for the status the server would answer.
 * @module
 */
import { join } from "node:path"
import * as Client from "@umo/client"
import { type Account, AccountStore } from "@umo/core"
import { Database, EmbedderChoice, IndexedMemorySearch, SigningKey, StorageStack } from "@umo/plugins"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Schema, Stream } from "effect"
import { memoryLayer, type UmoConfig } from "./Config.js"
import { isMemoryError, type MemoryError, statusOf } from "./Errors.js"
import { Memory, MemoryAccount, type MemoryShape } from "./Memory.js"
import * as Results from "./Results.js"
import * as Transfers from "./Transfers.js"

export interface OpenMemoryOptions extends UmoConfig {
  /**
   * Where PGlite keeps the database (`<dataDir>/pglite`) and the signing key is kept
   * (`<dataDir>/signing-key.pem`, made on first open); default `./data`. While open, the
   * directory is locked: another process cannot open it until `close()`.
   */
  readonly dataDir?: string | undefined
  /** A PostgreSQL server with pgvector instead of PGlite, e.g. `postgres://user@host/db`. */
  readonly databaseUrl?: string | undefined
  /** The account the memories belong to (made on first use); default `default`. */
  readonly account?: string | undefined
  /** The signing key as PEM (PKCS #8, Ed25519) or a private JWK, instead of the key file. */
  readonly signingKey?: string | undefined
  /**
   * Embed, in the background once open, what the first capture would otherwise wait for (the
   * default categories' descriptions, the slot sense's examples: seconds on two cores); default
   * true. False for an engine opened only to read, or opened and closed again and again.
   */
  readonly warmUp?: boolean | undefined
}

/** The memory service in this process: the verbs of `UMOClient`, `sweepExpired()` and `close()`. */
export interface OpenMemory extends Client.UMOMemory {
  /**
   * Erases the expired memories now (the sweeper does every `UMO_EXPIRY_SWEEP_SECONDS`): the signed
   * erasure receipt of this account's, none when none had expired. Reads leave them out already.
   */
  sweepExpired(): Promise<Client.ErasureReceipt | null>
  /** Stops the service: waits for calls under way, closes the database and releases its directory. */
  close(): Promise<void>
}

/** The error `UMOClient` raises for a failure of the service: same class, status and detail. */
const clientError = (cause: Cause.Cause<unknown>): Client.UMOError => {
  // A request builder refused an option (`Client.checkOptions`): the error the client raises too.
  const thrown = cause.reasons.find(Cause.isDieReason)?.defect
  if (thrown instanceof Client.UMOError) return thrown
  const error = cause.reasons.find(Cause.isFailReason)?.error
  return isMemoryError(error)
    ? Client.errorFor(statusOf(error), error.detail, null, null)
    : new Client.APIError(`the memory service failed: ${Cause.pretty(cause)}`, 500)
}

/** What a stream's iteration threw, as the error `UMOClient` raises. */
const thrownError = (error: unknown): Client.UMOError =>
  error instanceof Client.UMOError ? error : clientError(Cause.fail(error))

/** An import's input as the stream the service reads. */
const inputStream = (input: Client.ImportInput): Stream.Stream<Uint8Array | string, unknown> =>
  typeof input === "string" || input instanceof Uint8Array
    ? Stream.make(input)
    : Symbol.asyncIterator in input
      ? Stream.fromAsyncIterable(input, (cause) => cause)
      : Stream.fromIterable(input)

/** The storage of `options`: PGlite in `dataDir`, or PostgreSQL; the key file in `dataDir`. */
const storageOf = (options: OpenMemoryOptions) => {
  const dataDir = options.dataDir ?? "./data"
  return StorageStack.layer({
    database:
      options.databaseUrl === undefined
        ? Database.pglite({ dataDir: join(dataDir, "pglite") })
        : Database.postgres(options.databaseUrl),
    signingKey: SigningKey.layer({ dataDir, pem: options.signingKey }),
    embedder: options.embedder ?? EmbedderChoice.layerConfig,
    // A store pinned to another model is re-embedded with this one when asked (`reembed`, UMO_REEMBED).
    pinnedEmbedder:
      options.pinnedEmbedder ?? (options.embedder === undefined ? EmbedderChoice.forPinnedId : undefined),
    reembed: options.reembed,
    searchIndex: { snapshotDir: IndexedMemorySearch.snapshotDirIn(dataDir) }
  })
}

/** The memory service opened in-process, as an Effect runtime, and the account it acts for. */
export interface OpenedMemoryRuntime {
  readonly runtime: ManagedRuntime.ManagedRuntime<Memory, never>
  readonly account: Account
}

/**
 * Opens the memory service in-process: storage, models and the account are ready when the
 * promise resolves. Fails (rejects) when the database or its directory lock, the signing key, the
 * embedder or a plugin's configuration cannot be had. For faces written with Effect (the MCP
 * server); apps call `openMemory`.
 */
export const openMemoryRuntime = async (options: OpenMemoryOptions = {}): Promise<OpenedMemoryRuntime> => {
  // A missing model is refused before anything (the data directory, the database) is created.
  if (options.embedder === undefined) {
    const checked = await Effect.runPromiseExit(EmbedderChoice.checkInstalled)
    if (Exit.isFailure(checked)) {
      const error = Cause.squash(checked.cause)
      throw new Client.UMOError(
        `could not open the memory service: ${error instanceof Error ? error.message : error}`
      )
    }
  }
  const runtime = ManagedRuntime.make(
    memoryLayer(options, { warmUp: options.warmUp ?? true }).pipe(Layer.provideMerge(storageOf(options)))
  )
  const opened = await runtime.runPromiseExit(
    Effect.flatMap(Effect.service(AccountStore), (accounts) =>
      accounts.ensureAccount(options.account ?? "default")
    )
  )
  if (Exit.isFailure(opened)) {
    await runtime.dispose()
    throw new Client.UMOError(`could not open the memory service: ${Cause.pretty(opened.cause)}`)
  }
  return { runtime: runtime as ManagedRuntime.ManagedRuntime<Memory, never>, account: opened.value }
}

/** Opens the memory service in-process (see `openMemoryRuntime`), with the verbs of `UMOClient`. */
export const openMemory = async (options: OpenMemoryOptions = {}): Promise<OpenMemory> => {
  const { runtime, account } = await openMemoryRuntime(options)

  /** Runs one call of the service for the account, its result encoded as the server sends it. */
  const call = async <S extends Schema.Top & { readonly EncodingServices: never }>(
    schema: S,
    use: (memory: MemoryShape) => Effect.Effect<S["Type"], MemoryError, MemoryAccount>
  ): Promise<Client.Raw> => {
    const exit = await runtime.runPromiseExit(
      Effect.flatMap(Effect.service(Memory), use).pipe(
        Effect.flatMap((result) => Schema.encodeEffect(schema)(result).pipe(Effect.orDie)),
        Effect.provideService(MemoryAccount, account)
      )
    )
    if (Exit.isFailure(exit)) throw clientError(exit.cause)
    return exit.value as Client.Raw
  }

  /** An export's lines, each encoded as the server writes it, made as the loop asks for them. */
  async function* exportLines(options: Client.ExportOptions): AsyncGenerator<Client.ExportLine> {
    const lines = Stream.unwrap(
      Effect.flatMap(Effect.service(Memory), (m) => m.exportMemories(Client.exportRequest(options)))
    ).pipe(
      Stream.mapEffect((line) => Effect.orDie(Schema.encodeEffect(Transfers.ExportLine)(line))),
      Stream.provideService(MemoryAccount, account)
    )
    try {
      yield* Stream.toAsyncIterableWith(lines, await runtime.context()) as AsyncIterable<Client.ExportLine>
    } catch (error) {
      throw thrownError(error)
    }
  }

  const memory: OpenMemory = {
    capture: async (content, options = {}) =>
      new Client.Captured(
        await call(Results.Captured, (m) =>
          m.capture(Client.captureRequest(content, options), { idempotencyKey: options.idempotencyKey })
        )
      ),
    batch: async (items, options = {}) => {
      const data = await call(Results.BatchResult, (m) =>
        m.batch(Client.batchRequest(items), { idempotencyKey: options.idempotencyKey })
      )
      return (data.results as ReadonlyArray<Client.Raw>).map((r) => new Client.BatchItem(r))
    },
    upload: async (file, filename, options = {}) => {
      const bytes = new Uint8Array(await file.arrayBuffer())
      return new Client.Uploaded(
        await call(Results.Uploaded, (m) =>
          m.upload(
            // As a multipart part: a Blob without a type is sent as application/octet-stream.
            {
              filename,
              mediaType: file.type || "application/octet-stream",
              bytes,
              ...Client.uploadRequest(options)
            },
            { idempotencyKey: options.idempotencyKey }
          )
        )
      )
    },
    update: async (id, change) =>
      new Client.Captured(
        await call(Results.Captured, (m) =>
          m.update(id, Client.updateRequest(change), { idempotencyKey: change.idempotencyKey })
        )
      ),
    scopes: async (options = {}) =>
      new Client.ScopePage(await call(Results.ScopeList, (m) => m.scopes(Client.scopesRequest(options)))),
    get: async (id) => new Client.Memory(await call(Results.MemoryRecord, (m) => m.get(id))),
    history: async (id) => new Client.MemoryHistory(await call(Results.MemoryHistory, (m) => m.history(id))),
    list: async (options = {}) =>
      new Client.MemoryPage(await call(Results.ListPage, (m) => m.list(Client.listRequest(options)))),
    iterate: (options = {}) => Client.iteratePages((page) => memory.list(page), options),
    ask: async (query, options = {}) => {
      const data = await call(Results.SearchResults, (m) => m.search(Client.askRequest(query, options)))
      return (data.results as ReadonlyArray<Client.Raw>).map((r) => new Client.Match(r))
    },
    answer: async (question, options = {}) =>
      new Client.Answer(
        await call(Results.AskAnswer, (m) => m.answer(Client.answerRequest(question, options)))
      ),
    compare: async (sourceId, candidateId, options = {}) =>
      new Client.Comparison(
        await call(Results.MatchResult, (m) =>
          m.compare(Client.compareRequest(sourceId, candidateId, options))
        )
      ),
    verify: async (id) => new Client.Proof(await call(Results.Proof, (m) => m.proof(id))),
    explain: async (id, options = {}) =>
      new Client.Explanation(
        await call(Results.Explanation, (m) => m.explain(id, Client.explainRequest(options)))
      ),
    forget: async (id) =>
      new Client.DeletionReceipt(await call(Results.DeletionReceipt, (m) => m.forget(id))),
    forgetMany: async (ids) =>
      new Client.ErasureReceipt(await call(Results.ErasureReceipt, (m) => m.forgetMany({ umo_ids: ids }))),
    updateMany: async (changes, options = {}) => {
      const data = await call(Results.UpdateManyResult, (m) =>
        m.updateMany(Client.updateManyRequest(changes), { idempotencyKey: options.idempotencyKey })
      )
      return (data.results as ReadonlyArray<Client.Raw>).map((r) => new Client.BatchItem(r))
    },
    forgetAll: async (scope) =>
      new Client.ErasureReceipt(
        await call(Results.ErasureReceipt, (m) => m.erase(Client.selectionRequest(scope)))
      ),
    account: async () => {
      const info = await call(Results.AccountInfo, (m) => m.account)
      // In-process there is no API key: the account is the one opened.
      return new Client.Account({
        ...info,
        key: { key_id: "in-process", tier: account.tier, status: "active" }
      })
    },
    categories: async () =>
      new Client.CategoryList(await call(Results.CategoryListResult, (m) => m.categories)),
    setCategories: async (categories) =>
      new Client.CategoryList(
        await call(Results.CategoryListResult, (m) => m.setCategories({ categories: categories as never }))
      ),
    createWebhook: async (url, options = {}) =>
      new Client.Webhook(
        await call(Results.CreatedWebhook, (m) =>
          m.createWebhook({
            url,
            ...(options.events ? { events: options.events as never } : {}),
            ...(options.name ? { name: options.name } : {})
          })
        )
      ),
    webhooks: async () => {
      const data = await call(Results.WebhookList, (m) => m.webhooks)
      return (data.webhooks as ReadonlyArray<Client.Raw>).map((w) => new Client.Webhook(w))
    },
    deleteWebhook: async (id) =>
      new Client.Webhook(await call(Results.WebhookInfo, (m) => m.deleteWebhook(id))),
    models: async () => new Client.Models(await call(Results.ModelList, (m) => m.models)),
    signingKeys: async () => {
      const keys = await call(Results.SigningKeys, (m) => m.signingKeys)
      return keys as unknown as Client.SigningKeySet
    },
    chain: async (options = {}) =>
      new Client.ChainPage(await call(Results.ChainPage, (m) => m.chain(Client.chainRequest(options)))),
    exportMemories: (options = {}) => exportLines(options),
    importMemories: async (input, options = {}) =>
      new Client.ImportSummary(
        await call(Transfers.ImportSummary, (m) =>
          m.importMemories(inputStream(input), Client.importRequest(options))
        )
      ),
    sweepExpired: async () => {
      const raw = await call(Schema.Array(Results.ExpiredErasure), (m) => m.sweepExpired)
      const mine = (raw as unknown as ReadonlyArray<Client.Raw>).find(
        (s) => s.account_id === account.account_id
      )
      return mine === undefined ? null : new Client.ErasureReceipt(mine.erasure as Client.Raw)
    },
    close: () => runtime.dispose()
  }
  return memory
}
