import type { Embedder } from "@umo/core"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as IndexedMemorySearch from "../search/IndexedMemorySearch.js"
import * as Reembedding from "./Reembedding.js"
import type { SigningKey } from "./SigningKey.js"
import * as SqlAccountStore from "./SqlAccountStore.js"
import * as SqlLedger from "./SqlLedger.js"
import * as SqlMemoryProvenance from "./SqlMemoryProvenance.js"
import * as SqlMemoryStore from "./SqlMemoryStore.js"
import * as SqlWebhooks from "./SqlWebhooks.js"

/**
 * The whole storage stack from its parts: a (migrated) database, the signing key and the embedder
 * the store is pinned to. Provides MemoryStore, MemorySearch (served by the in-process index,
 * `IndexedMemorySearch`) and SearchIndex, MemoryProvenance, AccountStore, Ledger and Reembedding
 * (a re-embedding under way, if any), and passes the parts on.
 */
export const layer = <E1, E2, E3, E4 = never, R4 = never>(parts: {
  readonly database: Layer.Layer<SqlClient.SqlClient, E1>
  readonly signingKey: Layer.Layer<SigningKey, E2>
  readonly embedder: Layer.Layer<Embedder, E3>
  /**
   * The embedder a store was pinned to, by the id it recorded: given, a store pinned to another
   * model than `embedder`'s is re-embedded with it in the background when `reembed` (default
   * `UMO_REEMBED`) says so, searches answering with this one meanwhile (see `Reembedding`).
   */
  readonly pinnedEmbedder?: ((id: string) => Layer.Layer<Embedder, E4, R4>) | undefined
  readonly reembed?: boolean | undefined
  readonly ledger?: SqlLedger.SqlLedgerOptions
  readonly searchIndex?: IndexedMemorySearch.IndexOptions
}) =>
  Reembedding.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlMemoryStore.layer,
        IndexedMemorySearch.layer(parts.searchIndex),
        SqlMemoryProvenance.layer,
        SqlAccountStore.layer,
        SqlWebhooks.layer
      )
    ),
    Layer.provideMerge(SqlLedger.layer(parts.ledger)),
    Layer.provideMerge(parts.signingKey),
    Layer.provideMerge(Reembedding.embedderLayer(parts.embedder, parts.pinnedEmbedder, parts.reembed)),
    Layer.provideMerge(parts.database)
  )
