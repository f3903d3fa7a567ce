import {
  type CaptureReceipt,
  type CaptureWrite,
  Embedder,
  type IdempotentWrite,
  idempotencyKeyHours,
  Ledger,
  type LedgerEvent,
  MemoryStore,
  type MemoryStoreShape,
  makeMemoryStore,
  recordHash,
  StoreError,
  type Umo
} from "@umo/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { pinEmbedder, readPin } from "./EmbedderPin.js"
import { readClient } from "./ReadReplicas.js"
import { findOriginals } from "./SqlDuplicates.js"
import { eraseMatching } from "./SqlErasure.js"
import { makeExports } from "./SqlExports.js"
import { storeError, transaction } from "./SqlFailure.js"
import { filterSql } from "./SqlFilter.js"
import { insertRows } from "./SqlInsertRows.js"
import { lockChainHead } from "./SqlLedger.js"
import {
  chunksOf,
  memoryColumns as columnsOf,
  type MemoryRow,
  toStored,
  vectorText
} from "./SqlMemoryRows.js"
import { shareSwitchLock } from "./SqlReembedding.js"
import { listScopes } from "./SqlScopes.js"
import { applySupersessions, factRows, recordSupersessionTimes } from "./SqlSupersessions.js"
import * as TableStatistics from "./TableStatistics.js"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ledger = yield* Ledger
  const embedder = yield* Embedder
  yield* pinEmbedder(embedder.model)
  /** The models this process has embedded with: one, and another after each re-embedding's switch. */
  const served = new Set([embedder.model.id])
  const statistics = yield* TableStatistics.make(sql, yield* Effect.scope)
  // What only reads goes to a replica that has caught up, when there are some (see ReadReplicas).
  const reads = yield* readClient

  const memoryRow = (accountId: string, umo: Umo, record_hash: string) => ({
    account_id: accountId,
    umo_id: umo.umo_id,
    content: umo.content,
    summary: umo.summary,
    entities: JSON.stringify(umo.entities),
    svo_triples: JSON.stringify(umo.svo_triples),
    topics: JSON.stringify(umo.topics),
    tone: JSON.stringify(umo.tone),
    language: umo.language,
    quality_score: umo.quality_score,
    source: umo.source,
    user_id: umo.user_id,
    agent_id: umo.agent_id,
    session_id: umo.session_id,
    metadata: JSON.stringify(umo.metadata),
    content_time: umo.timestamp,
    created_at: umo.created_at,
    pipeline: JSON.stringify(umo.pipeline),
    extensions: JSON.stringify(umo.extensions),
    content_hash: umo.content_hash,
    semantic_hash: umo.semantic_hash,
    record_hash,
    embedding_model: umo.embedding.model
  })

  const idempotentAnswer = (accountId: string, key: string) =>
    sql<{ fingerprint: string; response: string }>`
      SELECT fingerprint, response FROM idempotency_keys
      WHERE account_id = ${accountId} AND key = ${key}
        AND created_at > now() - ${`${idempotencyKeyHours} hours`}::interval`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullishOr(rows[0]), (row) => ({
          fingerprint: row.fingerprint,
          response: JSON.parse(row.response) as unknown
        }))
      ),
      Effect.mapError(storeError("could not read the idempotency key"))
    )

  const insertMany = (
    accountId: string,
    writes: ReadonlyArray<CaptureWrite>,
    idempotency?: IdempotentWrite
  ) =>
    Effect.gen(function* () {
      const umos = writes.map((w) => w.umo)
      const foreign = (pin: { readonly id: string; readonly dimensions: number }) =>
        umos.find((umo) => umo.embedding.model !== pin.id || umo.embedding.dimensions !== pin.dimensions)
      // Vectors of a model this process never embedded with (a plugin's own, say) are refused
      // outright; those of the model it embedded with before a re-embedding's switch are embedded again.
      served.add(embedder.model.id)
      const unlike = umos.find((umo) => !served.has(umo.embedding.model))
      if (unlike !== undefined) {
        return yield* new StoreError({
          reason: "EmbedderMismatch",
          detail: `this store holds ${embedder.model.id} vectors (${embedder.model.dimensions} dimensions), not ${unlike.embedding.model}`
        })
      }
      const recordHashes = umos.map((umo) =>
        recordHash({
          account_id: accountId,
          umo_id: umo.umo_id,
          source: umo.source,
          user_id: umo.user_id,
          agent_id: umo.agent_id,
          session_id: umo.session_id,
          metadata: umo.metadata,
          timestamp: umo.timestamp,
          created_at: umo.created_at,
          embedding_model: umo.embedding.model,
          chunks: umo.embedding.chunks.map((chunk, index) => ({ index, ...chunk }))
        })
      )
      const receipts = yield* transaction(
        sql,
        Effect.gen(function* () {
          // A re-embedding's switch takes this lock alone while it moves the store to another model:
          // read under it, the pin is the one these vectors will sit beside.
          yield* shareSwitchLock(sql)
          // Then the account's chain head: writers of one account take turns from the start, so the
          // search statistics' row locks (taken row by row by a trigger) cannot deadlock.
          yield* lockChainHead(sql, accountId)
          const now = yield* readPin(sql)
          if (foreign(now) !== undefined)
            return yield* new StoreError({
              reason: "EmbedderSwitched",
              detail: `the store moved to ${now.id} (${now.dimensions} dimensions) while these memories were embedded`
            })
          // A write repeating a current memory stores nothing: the chain records the repeat.
          const originals = yield* findOriginals(sql, accountId, writes, recordHashes)
          const stored = writes.flatMap((w, i) => (originals.has(i) ? [] : [{ w, i }]))
          const storedWrites = stored.map(({ w }) => w)
          yield* insertRows(
            sql,
            "memories",
            stored.map(({ w, i }) => ({
              ...memoryRow(accountId, w.umo, recordHashes[i]!),
              imported_from: w.origin === undefined ? null : JSON.stringify(w.origin.imported_from),
              expires_at: w.expiresAt ?? null,
              immutable: w.immutable ?? false,
              categories: JSON.stringify(w.categories ?? [])
            })),
            500
          )
          // An original imported twice (two imports racing) fails here, on the primary key: stored
          // once. One imported as a repeat is kept as the memory it repeats.
          yield* insertRows(
            sql,
            "memory_origins",
            writes.flatMap((w, i) =>
              w.origin === undefined
                ? []
                : [
                    {
                      account_id: accountId,
                      origin: w.origin.key,
                      umo_id: originals.get(i)?.umo_id ?? w.umo.umo_id
                    }
                  ]
            )
          )
          yield* insertRows(
            sql,
            "memory_chunks",
            storedWrites.flatMap(({ umo }) =>
              umo.embedding.chunks.map((chunk, chunk_index) => ({
                account_id: accountId,
                umo_id: umo.umo_id,
                chunk_index,
                start_offset: chunk.start,
                end_offset: chunk.end,
                embedding: vectorText(chunk.vector)
              }))
            ),
            1_000
          )
          yield* insertRows(sql, "memory_facts", factRows(accountId, storedWrites), 2_000)
          const { updated, events } = yield* applySupersessions(sql, accountId, storedWrites)
          // The captures' entries, the repeats', then each supersession's (which names a memory captured first).
          const captures = stored.map(
            ({ w, i }): LedgerEvent => ({
              kind: "capture",
              umo_id: w.umo.umo_id,
              content_hash: w.umo.content_hash,
              semantic_hash: w.umo.semantic_hash,
              record_hash: recordHashes[i]!
            })
          )
          const repeats = [...originals.values()].map(
            (o): LedgerEvent => ({
              kind: "repeat",
              umo_id: o.umo_id,
              content_hash: o.content_hash,
              semantic_hash: o.semantic_hash,
              record_hash: o.record_hash
            })
          )
          const appended = yield* ledger.appendMany(accountId, [...captures, ...repeats, ...events])
          // One append records one time for all its entries.
          yield* recordSupersessionTimes(sql, accountId, appended)
          const captureEntries = new Map(appended.slice(0, captures.length).map((e) => [e.umo_id, e]))
          const receipts = yield* Effect.forEach(writes, (w, i) => {
            // A repeat's receipt is its original's capture entry, signed again.
            const original = originals.get(i)
            const id = original?.umo_id ?? w.umo.umo_id
            const entry = original?.entry ?? captureEntries.get(id)!
            return Effect.map(
              ledger.signReceipt({ type: "umo-capture-receipt", umo_id: id, entry }),
              (receipt): CaptureReceipt => ({
                entry,
                receipt,
                supersedes: original === undefined ? (updated.get(id)?.supersedes ?? []) : [],
                superseded_by: original === undefined ? (updated.get(id)?.superseded_by ?? null) : null,
                ...(original === undefined
                  ? {}
                  : {
                      duplicate_of: {
                        umo_id: original.umo_id,
                        created_at: original.created_at,
                        quality_score: original.quality_score
                      }
                    })
              })
            )
          })
          if (idempotency !== undefined) yield* rememberAnswer(accountId, idempotency, receipts)
          return { receipts, stored: stored.length }
        })
      )
      yield* statistics.wrote(receipts.stored)
      return receipts.receipts
    }).pipe(Effect.mapError(storeError("could not store the memories")))

  /**
   * Stores an idempotent write's answer in its transaction. A key of the account used in the last
   * 24 hours fails the write; an older one is taken over, and older ones are forgotten.
   */
  const rememberAnswer = (
    accountId: string,
    write: IdempotentWrite,
    receipts: ReadonlyArray<CaptureReceipt>
  ) =>
    Effect.gen(function* () {
      // The expired keys go first, this one among them, so the insert takes it over; a key in use
      // conflicts and stores nothing. (No DO UPDATE … WHERE on the age: Citus takes no function
      // that is not immutable there, and timestamptz arithmetic is only stable.)
      yield* sql`DELETE FROM idempotency_keys WHERE account_id = ${accountId}
                 AND created_at <= now() - ${`${idempotencyKeyHours} hours`}::interval`
      const stored = yield* sql`
        INSERT INTO idempotency_keys (account_id, key, fingerprint, response)
        VALUES (${accountId}, ${write.key}, ${write.fingerprint}, ${JSON.stringify(write.response(receipts))})
        ON CONFLICT (account_id, key) DO NOTHING
        RETURNING 1 AS stored`
      if (stored.length === 0) {
        return yield* new StoreError({
          reason: "IdempotencyKeyUsed",
          detail: "another request stored an answer under this idempotency key first"
        })
      }
    })

  const insert = (accountId: string, umo: Umo) =>
    Effect.map(
      insertMany(accountId, [{ umo, supersedes: [], facts: [], inferUpdates: false }]),
      (receipts) => receipts[0]!
    )

  const getMany: MemoryStoreShape["getMany"] = (accountId, umoIds) =>
    umoIds.length === 0
      ? Effect.succeed([])
      : reads<MemoryRow>`SELECT ${readColumns(accountId)} FROM memories WHERE account_id = ${accountId} AND ${reads.in("umo_id", umoIds)}`.pipe(
          Effect.map((rows) => rows.map(toStored)),
          Effect.mapError(storeError("could not read memories"))
        )

  const get = (accountId: string, umoId: string) =>
    reads<MemoryRow>`SELECT ${readColumns(accountId)} FROM memories
      WHERE account_id = ${accountId} AND umo_id = ${umoId} AND ${readFilters.unexpired}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toStored)),
      Effect.mapError(storeError("could not read the memory"))
    )

  // Two statements, not RETURNING: the memory's columns hold a subquery and to_char, which Citus
  // refuses in RETURNING.
  const setExpiry: MemoryStoreShape["setExpiry"] = (accountId, umoId, expiresAt) =>
    Effect.gen(function* () {
      const moved = yield* sql`UPDATE memories SET expires_at = ${expiresAt}::timestamptz
        WHERE account_id = ${accountId} AND umo_id = ${umoId} AND superseded_by IS NULL AND ${filters.unexpired}
        RETURNING umo_id`
      if (moved.length === 0) return []
      return yield* sql<MemoryRow>`SELECT ${columnsOf(sql, accountId)} FROM memories
        WHERE account_id = ${accountId} AND umo_id = ${umoId}`
    }).pipe(
      (moving) => sql.withTransaction(moving),
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toStored)),
      Effect.mapError(storeError("could not set the memory's expiry"))
    )

  /**
   * The expired memories, oldest expiry first, erased account by account: each account's under its
   * chain lock, so a capture superseding one of them waits, then finds it gone.
   */
  const sweepExpired: MemoryStoreShape["sweepExpired"] = (limit) =>
    Effect.gen(function* () {
      const due = yield* sql<{ account_id: string; umo_id: string }>`
        SELECT account_id::text AS account_id, umo_id::text AS umo_id FROM memories
        WHERE expires_at IS NOT NULL AND expires_at <= now() ORDER BY expires_at LIMIT ${limit}`
      const byAccount = new Map<string, Array<string>>()
      for (const row of due)
        byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row.umo_id])
      return yield* Effect.forEach([...byAccount], ([accountId, ids]) =>
        eraseMatching(
          sql,
          ledger,
          accountId,
          sql`${sql.in("umo_id", ids)} AND expires_at <= now()`,
          "expired"
        ).pipe(
          Effect.tap((erased) => (erased.forgotten > 0 ? statistics.wrote(erased.forgotten) : Effect.void)),
          Effect.map((erasure) => ({ account_id: accountId, erasure }))
        )
      )
    }).pipe(
      Effect.map((swept) => swept.filter((s) => s.erasure.forgotten > 0)),
      Effect.mapError(storeError("could not erase the expired memories"))
    )

  // `memories` is its own alias: memoryColumns names it so.
  const filters = filterSql(sql, "memories")
  const readFilters = filterSql(reads, "memories")
  const readColumns = (accountId: string) => columnsOf(reads, accountId)

  const list: MemoryStoreShape["list"] = (accountId, options) =>
    Effect.gen(function* () {
      const selected = readFilters.selected(options)
      const [count] = yield* reads<{ total: number }>`
        SELECT count(*)::int AS total FROM memories WHERE account_id = ${accountId} AND ${selected}`
      const rows = yield* reads<MemoryRow>`
        SELECT ${readColumns(accountId)} FROM memories WHERE account_id = ${accountId} AND ${selected}
        ORDER BY content_time DESC, created_at DESC, umo_id DESC LIMIT ${options.limit} OFFSET ${options.offset}`
      return { items: rows.map(toStored), total: Number(count?.total ?? 0) }
    }).pipe(Effect.mapError(storeError("could not list memories")))

  /**
   * The memory and every memory linked to it by supersession, through any number of links: found
   * link by link (a chain is a few memories long), each step one routed query. Not a recursive
   * CTE: Citus plans one only when its value of the account is a constant, not a parameter.
   */
  const history: MemoryStoreShape["history"] = (accountId, umoId) =>
    Effect.gen(function* () {
      const line = new Set([umoId])
      for (let frontier = [umoId]; frontier.length > 0; ) {
        const links = yield* reads<{ umo_id: string; superseded_by: string | null }>`
          SELECT umo_id::text AS umo_id, superseded_by::text AS superseded_by FROM memories
          WHERE account_id = ${accountId} AND (${reads.in("umo_id", frontier)} OR ${reads.in("superseded_by", frontier)})`
        frontier = links
          .flatMap((link) => [link.umo_id, link.superseded_by])
          .filter((id): id is string => id !== null && !line.has(id))
        for (const id of frontier) line.add(id)
      }
      const rows = yield* reads<MemoryRow>`
        SELECT ${readColumns(accountId)} FROM memories WHERE account_id = ${accountId} AND ${reads.in("umo_id", [...line])}
        ORDER BY content_time, umo_id`
      return rows.some((row) => row.umo_id === umoId) ? Option.some(rows.map(toStored)) : Option.none()
    }).pipe(Effect.mapError(storeError("could not read the memory's history")))

  const remove = (accountId: string, umoId: string) =>
    transaction(
      sql,
      Effect.gen(function* () {
        yield* lockChainHead(sql, accountId)
        const [row] = yield* sql<{ content_hash: string; semantic_hash: string; record_hash: string }>`
            DELETE FROM memories WHERE account_id = ${accountId} AND umo_id = ${umoId}
            RETURNING content_hash, semantic_hash, record_hash`
        if (!row) return Option.none()
        const entry = yield* ledger.append(accountId, { kind: "delete", umo_id: umoId, ...row })
        const deleted_at = entry.recorded_at
        const receipt = yield* ledger.signReceipt({
          type: "umo-deletion-receipt",
          umo_id: umoId,
          deleted_at,
          entry
        })
        yield* sql`INSERT INTO deletion_receipts ${sql.insert({ account_id: accountId, umo_id: umoId, seq: entry.seq, deleted_at, receipt })}`
        return Option.some({ forgotten: true as const, umo_id: umoId, deleted_at, receipt })
      })
    ).pipe(
      Effect.tap((deleted) => (Option.isSome(deleted) ? statistics.wrote(1) : Effect.void)),
      Effect.mapError(storeError("could not delete the memory"))
    )

  const vectors = (accountId: string, umoId: string) =>
    chunksOf(reads, accountId, umoId).pipe(
      Effect.map((chunks) => chunks.map((c) => c.vector)),
      Effect.mapError(storeError("could not read vectors"))
    )

  const erase: MemoryStoreShape["erase"] = (accountId, filter) =>
    eraseMatching(sql, ledger, accountId, filters.where(filter)).pipe(
      Effect.tap((erased) => (erased.forgotten > 0 ? statistics.wrote(erased.forgotten) : Effect.void)),
      Effect.mapError(storeError("could not erase the memories"))
    )

  const removeMany: MemoryStoreShape["removeMany"] = (accountId, umoIds) => {
    const ids = [...new Set(umoIds)]
    return eraseMatching(sql, ledger, accountId, sql.in("umo_id", ids), undefined, ids).pipe(
      Effect.tap((erased) => statistics.wrote(erased.forgotten)),
      Effect.mapError(storeError("could not delete the memories"))
    )
  }

  // An export pages through the account from a replica; an import asks which originals it holds
  // already after writing some itself, so it asks the primary.
  const { exportPage } = makeExports(reads, readFilters)
  const { originsOf } = makeExports(sql, filters)

  const scopes: MemoryStoreShape["scopes"] = (accountId, options) =>
    listScopes(reads, accountId, options).pipe(Effect.mapError(storeError("could not list the scopes")))

  const categoryList: MemoryStoreShape["categoryList"] = (accountId) =>
    reads<{ categories: string }>`SELECT categories::text AS categories FROM account_categories
      WHERE account_id = ${accountId}`.pipe(
      Effect.map(([row]) => Option.map(Option.fromNullishOr(row), (r) => JSON.parse(r.categories))),
      Effect.mapError(storeError("could not read the account's categories"))
    )

  const setCategoryList: MemoryStoreShape["setCategoryList"] = (accountId, categories) =>
    (categories === null
      ? sql`DELETE FROM account_categories WHERE account_id = ${accountId}`
      : // The time comes in as a value: Citus takes only immutable functions in DO UPDATE SET.
        sql`INSERT INTO account_categories (account_id, categories, updated_at)
          VALUES (${accountId}, ${JSON.stringify(categories)}::jsonb, now())
          ON CONFLICT (account_id) DO UPDATE SET categories = excluded.categories, updated_at = excluded.updated_at`
    ).pipe(Effect.asVoid, Effect.mapError(storeError("could not set the account's categories")))

  return makeMemoryStore({
    categoryList,
    setCategoryList,
    scopes,
    exportPage,
    originsOf,
    insert,
    insertMany,
    idempotentAnswer,
    get,
    getMany,
    vectors,
    list,
    history,
    remove,
    erase,
    removeMany,
    setExpiry,
    sweepExpired
  })
})

/** The MemoryStore port on an Effect SqlClient; needs the Ledger and the Embedder it pins. */
export const layer = Layer.effect(MemoryStore, make)
