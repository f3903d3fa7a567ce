import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager"
import { Document } from "@langchain/core/documents"
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers"
import type { Scope, UMOMemory } from "@umo/client"
import { fixedScope } from "@umo/client"

/** What each `Document` of `UMORetriever` carries beside the memory's text. */
export type UMODocumentMetadata = {
  /** The memory's id: `get`, `verify`, `explain` and `forget` take it. */
  readonly umo_id: string
  /** Ranking score: higher is more relevant. */
  readonly score: number
  /** When the memory was written (ISO 8601). */
  readonly timestamp: string
  readonly user_id: string | null
  readonly agent_id: string | null
  readonly session_id: string | null
  /** How many memories said this same text (the newest stands for them). */
  readonly times_said: number
  readonly source: string | null
  /** Later memories of the same person linked to this one (by the update judge or by nearness), newest first. */
  readonly later_related: ReadonlyArray<{
    readonly umo_id: string
    readonly text: string
    readonly timestamp: string
    readonly link: "judge" | "nearness"
  }>
}

export interface UMORetrieverInput extends BaseRetrieverInput {
  /** `new UMOClient(…)` (`@umo/client`) or `await openMemory(…)` (`@umo/memory`). */
  readonly memory: UMOMemory
  /** Whose memories: at least one of `userId`, `agentId`, `sessionId`. */
  readonly scope: Scope
  /** How many memories a query returns, 1–50 (default 5). */
  readonly limit?: number
  /** Rerank the best candidates with the server's cross-encoder (slower, better first results). */
  readonly rerank?: boolean
}

/**
 * A LangChain retriever over UMO's search (`ask`): the scope's memories that best match the query,
 * best first, each a `Document` whose `pageContent` is the memory's text and whose `id` and
 * `metadata.umo_id` are its id. UMO's errors (`ValidationError`, … with `detail`) pass through.
 */
export class UMORetriever extends BaseRetriever<UMODocumentMetadata> {
  static override lc_name() {
    return "UMORetriever"
  }
  override lc_namespace = ["umo", "retrievers"]
  readonly #memory: UMOMemory
  readonly #scope: Scope
  readonly #limit: number
  readonly #rerank: boolean | undefined

  constructor({ memory, scope, limit = 5, rerank, ...fields }: UMORetrieverInput) {
    super(fields)
    this.#memory = memory
    this.#scope = fixedScope(scope)
    this.#limit = limit
    this.#rerank = rerank
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun
  ): Promise<Array<Document<UMODocumentMetadata>>> {
    const matches = await this.#memory.ask(query, {
      ...this.#scope,
      limit: this.#limit,
      ...(this.#rerank === undefined ? {} : { rerank: this.#rerank })
    })
    return matches.map(
      (match) =>
        new Document<UMODocumentMetadata>({
          id: match.umoId,
          pageContent: match.content,
          metadata: {
            umo_id: match.umoId,
            score: match.score,
            timestamp: match.timestamp,
            user_id: match.userId,
            agent_id: match.agentId,
            session_id: match.sessionId,
            times_said: match.timesSaid,
            source: match.source,
            later_related: match.laterRelated.map((l) => ({
              umo_id: l.umoId,
              text: l.content,
              timestamp: l.timestamp,
              link: l.link
            }))
          }
        })
    )
  }
}
