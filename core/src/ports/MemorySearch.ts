import { Context, type Effect } from "effect"
import type { Entity } from "../Umo.js"
import type { StatedFact } from "../Updates.js"
import type { Selection, StoredMemory, StoreError } from "./MemoryStore.js"
import { traced } from "./Traced.js"

/** A search candidate with the raw signal that found it (cosine similarity or text rank). */
export interface Candidate {
  readonly umo_id: string
  readonly score: number
}

/** Which memories, and how many: candidates come only from the selection, inside the index. */
export interface SearchOptions extends Selection {
  readonly limit: number
  /** Score only these memories (exactly, without the index): how ranking scores neighbours. */
  readonly ids?: ReadonlyArray<string> | undefined
}

/** The memories captured just before and after one, in its source's timeline (null at the ends). */
export interface Neighbours {
  readonly umo_id: string
  readonly previous: string | null
  readonly next: string | null
}

/** What ranking reads of a memory besides its scores: when it happened, what it names and states. */
export interface RankingFacts {
  readonly umo_id: string
  readonly timestamp: string
  readonly entities: ReadonlyArray<Entity>
  /** The memory that replaced it, or null. */
  readonly superseded_by: string | null
  /** The facts it states (see `Updates`). */
  readonly facts: ReadonlyArray<StatedFact>
}

/**
 * What search returns of a memory: what it says, when, where it belongs, what it names and whether
 * it was replaced — a quarter of the whole record, without the list of what it replaced (one more
 * lookup per memory); the rest is read by id from the store.
 */
export type RecalledMemory = Pick<
  StoredMemory,
  | "umo_id"
  | "content"
  | "summary"
  | "entities"
  | "timestamp"
  | "created_at"
  | "source"
  | "user_id"
  | "agent_id"
  | "session_id"
  | "metadata"
  | "superseded_by"
  | "expires_at"
  | "categories"
>

/**
 * Finds an account's memories: candidates by vector and by text, and what ranking reads of them.
 * Every call is scoped to one account, and so are the statistics behind its scores.
 */
export interface MemorySearchShape {
  /**
   * Brings what the other calls read of the account up to the store's state as of this call: a
   * search kept in memory applies the changes committed since it last looked (a search that reads
   * the database itself has nothing to do). A search calls it once, before the others. Answers
   * where the account's searches are served from now: the in-process `index`, or the `database`
   * (a search that keeps no index, or one whose index is still loading).
   */
  readonly sync: (accountId: string) => Effect.Effect<"index" | "database", StoreError>
  /**
   * Tells the search that this process has just committed writes to the account: a search kept in
   * memory applies them in the background, so the next search finds it current. Returns at once.
   */
  readonly follow: (accountId: string) => Effect.Effect<void>
  /** Nearest memories by cosine similarity of their best chunk. */
  readonly searchVector: (
    accountId: string,
    vector: ReadonlyArray<number>,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
  /**
   * Full-text candidates ranked by BM25 over the account's memories (English stemming, stop
   * words dropped; any query term may match).
   */
  readonly searchText: (
    accountId: string,
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Candidate>, StoreError>
  /**
   * For each memory, its neighbours in its source's timeline among the selection: same source (or
   * both none), ordered by content time, then id (capture order).
   */
  readonly neighbours: (
    accountId: string,
    umoIds: ReadonlyArray<string>,
    selection: Selection
  ) => Effect.Effect<ReadonlyArray<Neighbours>, StoreError>
  /** The memories among `umoIds` reduced to what ranking reads: cheaper for the hundreds it scores. */
  readonly rankingFacts: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<RankingFacts>, StoreError>
  /**
   * What a search returns of the memories among `umoIds` (unknown ones skipped, in no particular
   * order), for the few it returns: a search kept in memory holds it for all but long documents.
   */
  readonly recalled: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<RecalledMemory>, StoreError>
  /**
   * The first chunk's vector of each memory among `umoIds` (unknown ones skipped): what a memory is
   * near to, to find the memories near it (`searchVector` with it) without embedding it again.
   */
  readonly vectors: (
    accountId: string,
    umoIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<number>>, StoreError>
}

export class MemorySearch extends Context.Service<MemorySearch, MemorySearchShape>()(
  "@umo/core/MemorySearch"
) {}

/** The port from an implementation, each method traced (`MemorySearch.searchText`, …). */
export const makeMemorySearch = (impl: MemorySearchShape): MemorySearchShape => traced("MemorySearch", impl)
