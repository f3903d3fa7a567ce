import { join } from "node:path"
import { setImmediate as nextTurn } from "node:timers/promises"
import { getHeapStatistics } from "node:v8"
import { Embedder, MemorySearch, makeMemorySearch, type StoreError } from "@umo/core"
import {
  Cache,
  Config,
  Context,
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  Schema,
  Scope,
  Semaphore
} from "effect"
import type { SqlClient } from "effect/sql"
import { pinEmbedder, settleVectorGraph } from "../storage/EmbedderPin.js"
import { readClient } from "../storage/ReadReplicas.js"
import { makeSearch } from "../storage/SqlMemorySearch.js"
import { AccountIndex, type IndexedRow } from "./AccountIndex.js"
import { type ChainEvent, type IndexRows, makeIndexRows } from "./IndexRows.js"
import { type IndexShard, indexes, shardConfig, shardOf, shardText } from "./IndexShard.js"
import { makeIndexSnapshots } from "./IndexSnapshots.js"

export interface IndexOptions {
  /** Accounts with at most this many memories are loaded inside the first search that needs them. */
  readonly loadInlineUpTo?: number | undefined
  /** Chain entries a search applies itself; with more behind, it reads the database while the index catches up. */
  readonly backlog?: number | undefined
  /** Memories read in one query while loading. */
  readonly pageSize?: number | undefined
  /** Load every account with memories when the layer starts, in the background (default true). */
  readonly preload?: boolean | undefined
  /**
   * Bytes the accounts' indexes may hold together (default 1 GiB): past it the account searched
   * least recently is dropped, and an account too large for it is never loaded. Either is served
   * by the database, as before its load.
   */
  readonly budgetBytes?: number | undefined
  /** Index only the accounts of this shard (see `IndexShard`); the others read the database. */
  readonly shard?: IndexShard | undefined
  /** Where the indexes keep their float32 vectors (see `ExactRows`). */
  readonly rowsDir?: string | undefined
  /** Where the accounts' vector graphs are saved to be taken up again after a restart (see `IndexSnapshots`); none when unset. */
  readonly snapshotDir?: string | undefined
  /** Removed memories an index keeps at least before it is loaded again without them (see `compactSoon`). */
  readonly compactFrom?: number | undefined
}

/** How far the in-process index is: accounts it serves, accounts being loaded, memories held. */
export interface IndexStatus {
  readonly serving: number
  readonly loading: number
  readonly memories: number
  /** Bytes the indexes hold, about, and the most they may. */
  readonly bytes: number
  readonly budgetBytes: number
  /** Accounts dropped to keep within the budget, since start. */
  readonly evictions: number
  /** `k/n` when this process indexes one shard of the accounts. */
  readonly shard: string | null
}

/** The in-process search index, for health reports and benchmarks. */
export class SearchIndex extends Context.Service<
  SearchIndex,
  {
    readonly status: Effect.Effect<IndexStatus>
    /**
     * Loads the account's index if needed and waits until searches of the account are served by
     * it, or returns at once when this process does not index it (another shard's, or too large).
     */
    readonly ready: (accountId: string) => Effect.Effect<void, StoreError>
    /** The account's shard, `k/n`, when this process indexes one shard of n; else null. */
    readonly shardOf: (accountId: string) => string | null
    /**
     * A re-embedding switched the store to vectors of `dims` dimensions: every account's index is
     * let go (searches read the database until each is loaded again, as after a start).
     */
    readonly reembedded: (dims: number) => Effect.Effect<void>
  }
>()("@umo/plugins/SearchIndex") {}

interface AccountState {
  readonly lock: Semaphore.Semaphore
  index: AccountIndex | undefined
  /** The chain position the index reflects. */
  seq: number
  /** Whether searches read the index (else the database, while it loads or catches up). */
  serving: boolean
  /** Whether a background load or catch-up is under way. */
  busy: boolean
  /** The last background load or catch-up started. */
  work: Fiber.Fiber<void> | undefined
  /** Whether chunks captured since the load are being added to the vector graph in the background. */
  building: boolean
  /** When a search last asked for the account (a counter): the coldest is dropped first. */
  used: number
  /** Whether a sync holds the account's lock. */
  locked: boolean
  /** Whether the account is too large for the budget: its searches read the database. */
  declined: boolean
  /** Whether a snapshot of its graph is due to be taken (see `snapshotSoon`). */
  snapshotDue: boolean
  /** Whether `follow` is applying this process's commits; and whether more came meanwhile. */
  following: boolean
  followAgain: boolean
  /**
   * Set while the index is loaded again without its removed memories (`compactSoon`): the new
   * index, once its load has made it.
   */
  compaction: { index: AccountIndex | undefined } | undefined
}

/**
 * The most a budget may be: 60 % of the V8 heap's limit (4.2 GB by default on a 64-bit machine).
 * A heap past its limit ends the process: a budget of 6 GB let an account of 1,000,000 memories
 * load until the server died, when the entries were objects in that heap. Since they are typed
 * arrays and pages of bytes (`MemoryEntries`), the heap holds only the maps, postings and
 * timelines, some 100 bytes a memory; the bound stays until a load of millions past it is measured.
 */
export const heapBound = () => Math.floor(getHeapStatistics().heap_size_limit * 0.6)

/** What `UMO_INDEX_MEMORY_MB` is when unset: 1 GiB. */
export const defaultBudgetBytes = 1024 * 1024 * 1024

/** Rows a load adds to an index between two turns of the event loop (about 20 ms). */
const rowsAtOnce = 250

/** Lets the event loop run between batches of background work (`/health` must answer meanwhile). */
const breather = Effect.promise(() => nextTurn())

/**
 * MemorySearch from an in-process index of each account (`AccountIndex`), kept as a cache of the
 * database, which stays the record. An account's index is loaded on its first search (or at
 * start) and follows the account's chain: `sync`, which a search calls first, reads the chain's
 * head and applies the captures, deletions and supersessions after the index's position — those
 * of other processes on the same database too — so a search sees every change committed before
 * it began. Until an account's index is loaded, or while it catches up on a long backlog in the
 * background, its searches read the database (`SqlMemorySearch`), as they do if the index fails.
 */
export const make = (
  sql: SqlClient.SqlClient,
  pinnedDims: number,
  scope: Scope.Scope,
  {
    loadInlineUpTo = 1_000,
    backlog = 1_000,
    pageSize = 1_000,
    preload = true,
    budgetBytes: asked = defaultBudgetBytes,
    shard,
    rowsDir,
    snapshotDir,
    compactFrom = 10_000
  }: IndexOptions = {}
) =>
  Effect.gen(function* () {
    const budgetBytes = Math.min(asked, heapBound())
    if (budgetBytes < asked)
      yield* Effect.logWarning(
        `search index: a budget of ${Math.round(asked / 2 ** 20)} MB is more than Node's heap can hold; ${Math.round(budgetBytes / 2 ** 20)} MB used (raise the heap with NODE_OPTIONS=--max-old-space-size=…)`
      )
    const database = makeSearch(sql)
    const rows: IndexRows = makeIndexRows(sql)
    // Both change when a re-embedding switches the store to another model (`reembedded`).
    let dims = pinnedDims
    let snapshots = snapshotDir === undefined ? undefined : makeIndexSnapshots(snapshotDir, rows, dims)
    const accounts = new Map<string, AccountState>()
    /** Snapshots being taken: run apart from `scope`, which would interrupt them as it closes. */
    const snapshotting = new Set<Fiber.Fiber<void>>()
    yield* Scope.addFinalizer(
      scope,
      Effect.gen(function* () {
        // A snapshot under way is finished first (a minute at most): a server stopped soon after
        // building a large account's graph would otherwise build it again on its next start.
        yield* Effect.forEach([...snapshotting], Fiber.await).pipe(
          Effect.timeout("60 seconds"),
          Effect.ignore
        )
        for (const state of accounts.values()) state.index?.close()
      })
    )
    // A search reads a query's terms twice (candidates, then the scores of given ids), and a
    // retry or the next page asks the same query again: each costs a round trip otherwise.
    const terms = yield* Cache.makeWith(rows.lexemes, {
      capacity: 256,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    })

    const stateOf = (accountId: string) => {
      let state = accounts.get(accountId)
      if (state === undefined) {
        state = {
          lock: Semaphore.makeUnsafe(1),
          index: undefined,
          seq: 0,
          serving: false,
          busy: false,
          work: undefined,
          building: false,
          used: 0,
          locked: false,
          declined: false,
          snapshotDue: false,
          following: false,
          followAgain: false,
          compaction: undefined
        }
        accounts.set(accountId, state)
      }
      return state
    }

    let clock = 0
    let evictions = 0
    const held = () =>
      AccountIndex.held(
        [...accounts.values()].flatMap((state) =>
          [state.index, state.compaction?.index].filter((index) => index !== undefined)
        )
      )
    /** Bytes an account of `count` memories should take: the loaded indexes' mean, else a first guess. */
    const expectedBytes = (count: number) => {
      let bytes = 0
      let memories = 0
      for (const state of accounts.values())
        if (state.index !== undefined) {
          bytes += state.index.bytes
          memories += state.index.size
        }
      return count * (memories >= 1_000 ? bytes / memories : 2 * dims + 2_500)
    }
    /**
     * Drops the accounts searched least recently until the indexes fit the budget: never `keep`,
     * nor one that is loading or whose lock is held (a sync under way adds to its index).
     */
    const makeRoom = (keep: string) =>
      Effect.sync(() => {
        let total = held()
        while (total > budgetBytes) {
          let coldest: AccountState | undefined
          for (const [accountId, state] of accounts)
            if (accountId !== keep && state.index !== undefined && !state.busy && !state.locked)
              if (coldest === undefined || state.used < coldest.used) coldest = state
          if (coldest === undefined) return
          drop(coldest)
          total = held()
          evictions++
        }
      })

    /** Runs `effect` under the account's lock, marking it held meanwhile (see `makeRoom`). */
    const locked = <A, E>(state: AccountState, effect: Effect.Effect<A, E>) =>
      state.lock.withPermit(
        Effect.suspend(() => {
          state.locked = true
          return effect
        }).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              state.locked = false
            })
          )
        )
      )

    /**
     * Applies chain entries in order: a capture adds the memory as it is now (or drops it, deleted
     * since), a re-embedding replaces its vectors. Vectors of another dimension than the index's
     * (a switch this process has not taken up yet) are left out; `reembedded` drops the index.
     */
    const apply = (accountId: string, index: AccountIndex, events: ReadonlyArray<ChainEvent>) =>
      Effect.gen(function* () {
        // Nothing deleted may stay on disk in a snapshot: it goes now, a new one follows.
        if (events.some((e) => e.kind === "delete")) snapshots?.forget(accountId)
        const captured = events
          .filter((e) => e.kind === "capture" || e.kind === "reembed")
          .map((e) => e.umo_id)
        const loaded = new Map((yield* rows.byIds(accountId, captured)).map((row) => [row.umo_id, row]))
        for (const event of events) {
          if (event.kind === "capture" || event.kind === "reembed") {
            const row = loaded.get(event.umo_id)
            if (row === undefined || row.vectors.some((v) => v.length !== index.dims))
              index.remove(event.umo_id)
            else index.add(row)
          } else if (event.kind === "delete") index.remove(event.umo_id)
          else if (event.kind === "supersede" && event.superseded_by !== null)
            index.supersede(event.umo_id, event.superseded_by)
        }
      })

    /** Every memory of the account, a page at a time; the index and the chain position it reflects. */
    const loadAll = (accountId: string, pause: Effect.Effect<void>) =>
      Effect.gen(function* () {
        const seq = yield* rows.head(accountId)
        const index = new AccountIndex(dims, rowsDir, yield* rows.count(accountId))
        let after: string | null = null
        for (;;) {
          const page: ReadonlyArray<IndexedRow> = yield* rows.page(accountId, after, pageSize)
          // A page a few hundred rows at a time: 1,000 took up to 80 ms here.
          for (let from = 0; from < page.length; from += rowsAtOnce) {
            for (const row of page.slice(from, from + rowsAtOnce)) index.add(row, { bulk: true })
            yield* pause
          }
          if (page.length < pageSize) break
          after = page.at(-1)!.umo_id
        }
        index.settle()
        if (snapshots !== undefined) yield* snapshots.restore(accountId, index)
        return { index, seq }
      })

    /** Applies the chain after the index's position, a page at a time, then builds the vector graph. */
    const catchUp = (accountId: string, state: AccountState, pause: Effect.Effect<void>) =>
      Effect.gen(function* () {
        for (;;) {
          const done = yield* locked(
            state,
            Effect.gen(function* () {
              const events = yield* rows.events(accountId, state.seq, pageSize)
              if (events.length > 0) {
                yield* apply(accountId, state.index!, events)
                state.seq = events.at(-1)!.seq
              }
              if (events.length < pageSize && !state.index!.buildStep()) {
                state.serving = true
                return true
              }
              return false
            })
          )
          if (done) return
          yield* pause
          // Until the graph thread has added the batch (or saved or loaded a graph): the next turn
          // would have nothing to add.
          const index = state.index
          if (index !== undefined) yield* Effect.promise(() => index.pause())
        }
      })

    /**
     * Takes a snapshot of the account's graph if one is due (`IndexSnapshots.capture` decides: the
     * graph whole, grown or changed since the last), in the background: its files are written
     * under the account's lock, then hashed and named without it.
     */
    const snapshotSoon = (accountId: string, state: AccountState) =>
      Effect.suspend(() => {
        const taker = snapshots
        // Checked here first: a search that applied new chain entries calls this, and most are not due.
        if (
          taker === undefined ||
          state.snapshotDue ||
          state.index === undefined ||
          !taker.due(accountId, state.index)
        )
          return Effect.void
        state.snapshotDue = true
        return Effect.map(
          Effect.forkDetach(
            Effect.gen(function* () {
              const commit = yield* locked(
                state,
                Effect.suspend(() =>
                  state.index === undefined || !state.serving
                    ? Effect.succeed(undefined)
                    : taker.capture(accountId, state.index, state.seq)
                )
              )
              if (commit !== undefined) yield* commit
            }).pipe(
              Effect.catchCause((cause) => Effect.logWarning("search index: a snapshot failed", cause)),
              Effect.ensuring(
                Effect.sync(() => {
                  state.snapshotDue = false
                })
              )
            )
          ),
          (fiber) => {
            snapshotting.add(fiber)
            fiber.addObserver(() => snapshotting.delete(fiber))
          }
        )
      })

    /** Lets go of an account's index: its searches read the database until it is loaded again. */
    const drop = (state: AccountState) => {
      state.index?.close()
      state.index = undefined
      state.serving = false
    }
    const forget = (state: AccountState) =>
      Effect.sync(() => {
        drop(state)
        state.busy = false
      })

    /** Loads (or catches up) the account in the background; searches read the database meanwhile. */
    const inBackground = (accountId: string, state: AccountState) =>
      Effect.suspend(() => {
        if (state.busy) return Effect.void
        state.busy = true
        return Effect.map(
          Effect.forkIn(
            Effect.gen(function* () {
              if (state.index === undefined) {
                const loaded = yield* loadAll(accountId, breather)
                state.index = loaded.index
                state.seq = loaded.seq
                yield* makeRoom(accountId)
              }
              yield* catchUp(accountId, state, breather)
              state.busy = false
              // Its graph is built now: what it holds is counted again (others may have to go).
              yield* makeRoom(accountId)
              yield* snapshotSoon(accountId, state)
            }).pipe(
              Effect.catchCause((cause) =>
                Effect.andThen(
                  Effect.logWarning(
                    "search index: loading an account failed; its searches read the database",
                    cause
                  ),
                  forget(state)
                )
              )
            ),
            scope
          ),
          (fiber) => {
            state.work = fiber
          }
        )
      })

    /**
     * Loads the account's index again, without the memories removed from it, once they are as many
     * as those it holds (and `compactFrom` at least): a removed memory (deleted, or replaced by its
     * re-embedding) leaves its slot, its texts and its vectors behind, counted against the budget,
     * so an account with many deletions grew until it was dropped and its searches read the database.
     * The new index loads, catches up and builds its graph in the background while the old one
     * serves; the two change places under the account's lock, the new one first brought up to the
     * chain's head. Only when the budget has room for both meanwhile (the new one is counted).
     */
    const compactSoon = (accountId: string, state: AccountState) =>
      Effect.suspend(() => {
        const old = state.index
        if (old === undefined || state.compaction !== undefined || state.busy) return Effect.void
        if (old.removed < Math.max(compactFrom, old.size)) return Effect.void
        if (held() + expectedBytes(old.size) > budgetBytes) return Effect.void
        /** Applies the chain after `seq` to `fresh`, a page at a time; its position after. */
        const caughtUp = (fresh: AccountIndex, seq: number): Effect.Effect<number, StoreError> =>
          Effect.flatMap(rows.events(accountId, seq, pageSize), (events) =>
            events.length === 0
              ? Effect.succeed(seq)
              : Effect.andThen(apply(accountId, fresh, events), caughtUp(fresh, events.at(-1)!.seq))
          )
        const compaction: { index: AccountIndex | undefined } = { index: undefined }
        state.compaction = compaction
        return Effect.asVoid(
          Effect.forkIn(
            Effect.gen(function* () {
              const loaded = yield* loadAll(accountId, breather)
              compaction.index = loaded.index
              let seq = yield* caughtUp(loaded.index, loaded.seq)
              while (loaded.index.buildStep()) yield* Effect.promise(() => loaded.index.pause())
              const swapped = yield* locked(
                state,
                Effect.gen(function* () {
                  if (state.index !== old || accounts.get(accountId) !== state) return false
                  seq = yield* caughtUp(loaded.index, seq)
                  state.index = loaded.index
                  state.seq = seq
                  compaction.index = undefined
                  old.close()
                  return true
                })
              )
              if (!swapped) return
              yield* buildInBackground(accountId, state)
              yield* makeRoom(accountId)
              yield* snapshotSoon(accountId, state)
            }).pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning(
                  "search index: loading an account again without its removed memories failed",
                  cause
                )
              ),
              Effect.ensuring(
                Effect.sync(() => {
                  // Not taken up (dropped meanwhile, or failed): let go of it.
                  compaction.index?.close()
                  if (state.compaction === compaction) state.compaction = undefined
                })
              )
            ),
            scope
          )
        )
      })

    /**
     * Adds the chunks captured since the load to the vector graph, a batch at a time between other
     * work (until then searches scan them exactly: `VectorSet.nearest`).
     */
    const buildInBackground = (accountId: string, state: AccountState) =>
      Effect.suspend(() => {
        if (state.building || state.index?.graphBehind !== true) return Effect.void
        state.building = true
        return Effect.asVoid(
          Effect.forkIn(
            Effect.gen(function* () {
              for (;;) {
                const index = state.index
                if (index?.buildStep() !== true) break
                yield* Effect.promise(() => index.pause())
              }
            }).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  state.building = false
                })
              ),
              Effect.andThen(snapshotSoon(accountId, state))
            ),
            scope
          )
        )
      })

    const sync = (accountId: string) => syncAccount(accountId, true)

    /** `sync`; `touch`: the search counts as a use of the account (the coldest is dropped first). */
    const syncAccount = (
      accountId: string,
      touch: boolean
    ): Effect.Effect<"index" | "database", StoreError> =>
      Effect.suspend(() => {
        if (!indexes(shard, accountId)) return Effect.succeed("database" as const)
        const state = stateOf(accountId)
        if (touch) state.used = ++clock
        return locked(
          state,
          Effect.gen(function* () {
            if (!state.serving) {
              if (state.busy) return "database" as const
              const count = state.index === undefined ? yield* rows.count(accountId) : 0
              state.declined = expectedBytes(count) > budgetBytes
              if (state.declined) return "database" as const
              if (state.index !== undefined || count > loadInlineUpTo) {
                yield* inBackground(accountId, state)
                return "database" as const
              }
              const loaded = yield* loadAll(accountId, Effect.void)
              state.index = loaded.index
              state.seq = loaded.seq
              state.serving = true
              yield* buildInBackground(accountId, state)
              yield* makeRoom(accountId)
              yield* snapshotSoon(accountId, state)
            }
            const head = yield* rows.head(accountId)
            if (head - state.seq > backlog) {
              state.serving = false
              yield* inBackground(accountId, state)
              return "database" as const
            }
            if (head > state.seq) {
              const events = yield* rows.events(accountId, state.seq, backlog)
              if (events.length > 0) {
                yield* apply(accountId, state.index!, events)
                state.seq = events.at(-1)!.seq
                yield* compactSoon(accountId, state)
                yield* buildInBackground(accountId, state)
                yield* makeRoom(accountId)
                yield* snapshotSoon(accountId, state)
              }
            }
            return "index" as const
          })
        )
      })

    /**
     * After this process committed writes to an account: applies them to its index in the
     * background, as they commit, so a burst of captures leaves the next search nothing to catch up
     * on (past `backlog` entries behind, a search would read the database while the index caught
     * up). Only an account whose index serves; one run at a time, and one more after it when more
     * commits came meanwhile. Other processes' commits are found by the next search, as before.
     */
    const follow = (accountId: string) =>
      Effect.suspend(() => {
        const state = accounts.get(accountId)
        if (state === undefined || !state.serving) return Effect.void
        if (state.following) {
          state.followAgain = true
          return Effect.void
        }
        state.following = true
        return Effect.asVoid(
          Effect.forkIn(
            Effect.gen(function* () {
              do {
                state.followAgain = false
                yield* syncAccount(accountId, false)
              } while (state.followAgain && state.serving)
            }).pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning("search index: following a write failed", cause)
              ),
              Effect.ensuring(
                Effect.sync(() => {
                  state.following = false
                })
              )
            ),
            scope
          )
        )
      })

    /**
     * The index call when the account's index serves, else the database's; an index that throws is
     * dropped. The database's call is made only when it runs: making it builds its statement (the
     * vector search writes the query vector out as text, about 0.1 ms), which the index needs not.
     */
    const served = <A>(
      accountId: string,
      indexed: (index: AccountIndex) => Effect.Effect<A, StoreError>,
      fromDatabase: () => Effect.Effect<A, StoreError>
    ): Effect.Effect<A, StoreError> =>
      Effect.suspend(() => {
        const state = accounts.get(accountId)
        if (state?.serving !== true || state.index === undefined) return fromDatabase()
        return indexed(state.index).pipe(
          Effect.catchDefect((defect) =>
            Effect.andThen(
              Effect.logError("search index: a search failed; the account's index is dropped", defect),
              Effect.andThen(forget(state), Effect.suspend(fromDatabase))
            )
          )
        )
      })

    const search = makeMemorySearch({
      sync,
      follow,
      searchVector: (accountId, vector, options) =>
        served(
          accountId,
          (index) =>
            Effect.suspend(() => {
              const found = index.searchVector(vector, options)
              return found === undefined
                ? database.searchVector(accountId, vector, options)
                : Effect.succeed(found)
            }),
          () => database.searchVector(accountId, vector, options)
        ),
      searchText: (accountId, query, options) =>
        served(
          accountId,
          (index) =>
            options.ids?.length === 0
              ? Effect.succeed([])
              : Effect.map(Cache.get(terms, query), (lexemes) => index.searchText(lexemes, options)),
          () => database.searchText(accountId, query, options)
        ),
      neighbours: (accountId, umoIds, selection) =>
        served(
          accountId,
          (index) => Effect.sync(() => index.neighbours(umoIds, selection)),
          () => database.neighbours(accountId, umoIds, selection)
        ),
      rankingFacts: (accountId, umoIds) =>
        served(
          accountId,
          (index) => Effect.sync(() => index.rankingFacts(umoIds)),
          () => database.rankingFacts(accountId, umoIds)
        ),
      recalled: (accountId, umoIds) =>
        served(
          accountId,
          (index) => {
            const { held, unheld } = index.recalled(umoIds)
            return unheld.length === 0
              ? Effect.succeed(held)
              : Effect.map(database.recalled(accountId, unheld), (documents) => [...held, ...documents])
          },
          () => database.recalled(accountId, umoIds)
        ),
      vectors: (accountId, umoIds) =>
        served(
          accountId,
          (index) => Effect.sync(() => index.firstVectors(umoIds)),
          () => database.vectors(accountId, umoIds)
        )
    })

    const status = Effect.sync(
      (): IndexStatus => ({
        serving: [...accounts.values()].filter((s) => s.serving).length,
        loading: [...accounts.values()].filter((s) => s.busy).length,
        memories: [...accounts.values()].reduce((n, s) => n + (s.index?.size ?? 0), 0),
        bytes: held(),
        budgetBytes,
        evictions,
        shard: shard === undefined ? null : shardText(shard)
      })
    )

    const ready = (accountId: string): Effect.Effect<void, StoreError> =>
      Effect.gen(function* () {
        for (;;) {
          yield* sync(accountId)
          if (!indexes(shard, accountId)) return
          const state = stateOf(accountId)
          if (state.serving || state.declined) return
          if (!state.busy) yield* inBackground(accountId, state)
          if (state.work !== undefined) yield* Fiber.await(state.work)
        }
      })

    if (preload) {
      // Largest accounts first, one at a time: each is served by the database until its turn.
      yield* Effect.forkIn(
        Effect.gen(function* () {
          // Only while the indexes fit: past the budget, loading one more would drop another.
          const listed = yield* rows.accounts
          snapshots?.prune(new Set(listed))
          for (const accountId of listed) {
            if (!indexes(shard, accountId)) continue
            if (held() + expectedBytes(yield* rows.count(accountId)) > budgetBytes) continue
            yield* ready(accountId)
          }
        }).pipe(
          Effect.catchCause((cause) =>
            Effect.logWarning("search index: preloading stopped; accounts load on their first search", cause)
          )
        ),
        scope
      )
    }
    const shardOfAccount = (accountId: string) =>
      shard === undefined ? null : shardText({ index: shardOf(accountId, shard.of), of: shard.of })

    const reembedded = (newDims: number) =>
      Effect.gen(function* () {
        // New searches start from fresh states at once; each old one is dropped once the work on it
        // (a load, a catch-up, a sync holding its lock) has stopped or finished.
        const old = [...accounts.entries()]
        accounts.clear()
        dims = newDims
        for (const [accountId] of old) snapshots?.forget(accountId)
        snapshots = snapshotDir === undefined ? undefined : makeIndexSnapshots(snapshotDir, rows, dims)
        for (const [, state] of old) {
          if (state.work !== undefined) yield* Fiber.interrupt(state.work)
          yield* locked(state, forget(state))
        }
      })
    return { search, index: SearchIndex.of({ status, ready, shardOf: shardOfAccount, reembedded }) }
  })

/** Where a deployment whose files are in `dataDir` keeps the graphs' snapshots (the server's and `openMemory`'s default). */
export const snapshotDirIn = (dataDir: string) => join(dataDir, "index-snapshots")

/** `UMO_INDEX_SNAPSHOT_DIR` when set (`off`: none), else the directory the caller gives (none when it gives none). */
const snapshotDirConfig = (given: string | undefined) =>
  Effect.map(Config.String("UMO_INDEX_SNAPSHOT_DIR").pipe(Config.option), (configured) =>
    Option.match(configured, { onNone: () => given, onSome: (dir) => (dir === "off" ? undefined : dir) })
  )

/**
 * MemorySearch served by the in-process index (see `make`), with the SearchIndex service beside
 * it; `UMO_SEARCH_INDEX=false` turns the index off (every search reads the database).
 */
export const layer = (options: IndexOptions = {}) =>
  Layer.effectContext(
    Effect.gen(function* () {
      // The index and its fallback only read: from a replica that has caught up, when there are some.
      const sql = yield* readClient
      const pinned = yield* pinEmbedder((yield* Embedder).model)
      const enabled = yield* Config.Boolean("UMO_SEARCH_INDEX").pipe(Config.withDefault(true))
      yield* settleVectorGraph(pinned.dimensions, enabled)
      if (!enabled) {
        const search = makeSearch(sql)
        const off = SearchIndex.of({
          status: Effect.succeed({
            serving: 0,
            loading: 0,
            memories: 0,
            bytes: 0,
            budgetBytes: 0,
            evictions: 0,
            shard: null
          }),
          ready: () => Effect.void,
          shardOf: () => null,
          reembedded: () => Effect.void
        })
        return Context.make(MemorySearch, search).pipe(Context.add(SearchIndex, off))
      }
      const budgetMb = yield* Config.schema(
        Schema.Number.check(Schema.isGreaterThan(0)),
        "UMO_INDEX_MEMORY_MB"
      ).pipe(Config.option)
      const shard = yield* shardConfig
      const { search, index } = yield* make(sql, pinned.dimensions, yield* Effect.scope, {
        ...options,
        budgetBytes: Option.match(budgetMb, {
          onNone: () => options.budgetBytes,
          onSome: (mb) => mb * 1024 * 1024
        }),
        shard: Option.getOrElse(shard, () => options.shard),
        rowsDir: Option.getOrElse(
          yield* Config.String("UMO_INDEX_DIR").pipe(Config.option),
          () => options.rowsDir
        ),
        snapshotDir: yield* snapshotDirConfig(options.snapshotDir)
      })
      return Context.make(MemorySearch, search).pipe(Context.add(SearchIndex, index))
    })
  )
