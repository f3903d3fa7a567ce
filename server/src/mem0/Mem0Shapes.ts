/**
 * UMO's answers in Mem0's shapes, snake_case (the JS client camel-cases every key itself): a
 * memory, a history entry, an entity. Every shape carries `umo_id` beside Mem0's `id` (the same
 * value), so a Mem0 user can take it to UMO's proofs. What Mem0 has and UMO does not is the empty
 * value Mem0 uses for it: `categories: []`, `app_id: null`.
 *
 * Times: a memory's `created_at` and `updated_at` are both its own time (UMO's `timestamp`: when it
 * was said, the capture time unless add's `timestamp` set it). A version is never changed once
 * stored, so its update time is its creation time; an update is a new version with its own id.
 * @module
 */
import type { Results } from "@umo/memory"

/** What every Mem0 memory shape is made from: a UMO memory as get, list and search show it. */
export interface MemoryFacts {
  readonly umo_id: string
  readonly text: string
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  readonly metadata: Readonly<Record<string, unknown>>
  readonly timestamp: string
  readonly superseded_by?: string | null | undefined
  readonly supersedes?: ReadonlyArray<string> | undefined
  readonly categories?: ReadonlyArray<string> | undefined
  /** Known where the answer read the whole record (get, list, update). */
  readonly expires_at?: string | null | undefined
  readonly immutable?: boolean | undefined
}

/** A memory as Mem0 shows it (its `Memory` object), with UMO's id and where it stands among versions. */
export const memoryObject = (m: MemoryFacts) => ({
  id: m.umo_id,
  memory: m.text,
  user_id: m.user_id,
  agent_id: m.agent_id,
  app_id: null,
  run_id: m.session_id,
  metadata: m.metadata,
  categories: m.categories ?? [],
  created_at: m.timestamp,
  updated_at: m.timestamp,
  ...(m.expires_at === undefined ? {} : { expiration_date: m.expires_at }),
  ...(m.immutable === undefined ? {} : { immutable: m.immutable }),
  ...(m.supersedes !== undefined && m.supersedes.length > 0 ? { supersedes: m.supersedes } : {}),
  ...(m.superseded_by === undefined || m.superseded_by === null ? {} : { superseded_by: m.superseded_by }),
  umo_id: m.umo_id
})

export type MemoryObject = ReturnType<typeof memoryObject>

/** A memory as `get` answers it. */
export const fromRecord = (record: Results.MemoryRecord): MemoryObject =>
  memoryObject({ ...record, text: record.content_text })

/**
 * A search result, with its score, and (a field of UMO's, which Mem0's clients pass through) the
 * later memories of the same person linked to it, as Mem0 memories with their time.
 */
export const fromSearchResult = (result: Results.SearchResults["results"][number]) => ({
  ...memoryObject({ ...result, text: result.content_text }),
  score: result.score,
  later_related: result.later_related.map((l) => ({
    id: l.umo_id,
    memory: l.content_text,
    created_at: l.timestamp,
    link: l.link,
    score: l.score
  }))
})

/**
 * A memory's history as Mem0's list of events, oldest first: the first version is its `ADD`, each
 * later one an `UPDATE` from the text before it. `memory_id` is the memory asked about; each
 * entry's `id` (and `umo_id`) is that version's own memory, readable and provable by it.
 */
export const historyEntries = (history: Results.MemoryHistory) =>
  history.versions.map((version, i) => ({
    id: version.umo_id,
    memory_id: history.umo_id,
    input: [],
    old_memory: i === 0 ? null : history.versions[i - 1]!.content_text,
    new_memory: version.content_text,
    event: i === 0 ? "ADD" : "UPDATE",
    user_id: version.user_id,
    agent_id: version.agent_id,
    app_id: null,
    run_id: version.session_id,
    metadata: version.metadata,
    categories: version.categories,
    created_at: version.timestamp,
    updated_at: version.timestamp,
    umo_id: version.umo_id
  }))

/** UMO's scope kinds as Mem0's entity types: a conversation (`session`) is Mem0's run. */
export const entityType = { user: "user", agent: "agent", session: "run" } as const

/** Mem0's entity types as the capture field each one is. */
export const scopeField = { user: "user_id", agent: "agent_id", run: "session_id" } as const

/** A scope of the account as a Mem0 entity; its `id` is its name, which is what identifies it in UMO. */
export const entityOf = (scope: Results.ScopeList["scopes"][number]) => ({
  id: scope.id,
  name: scope.id,
  type: entityType[scope.kind],
  total_memories: scope.memories,
  owner: null,
  metadata: null,
  created_at: scope.last_memory_at,
  updated_at: scope.last_memory_at
})

/** A page's `next` or `previous` link: the same path with another page. */
export const pageLink = (base: string, page: number, pageSize: number) =>
  `${base}?page=${page}&page_size=${pageSize}`
