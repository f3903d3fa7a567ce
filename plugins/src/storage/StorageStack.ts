import type { Embedder } from "@umo/core"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as IndexedMemorySearch from "../search/IndexedMemorySearch.js"
import type { SigningKey } from "./SigningKey.js"
import * as SqlAccountStore from "./SqlAccountStore.js"
import * as SqlLedger from "./SqlLedger.js"
import * as SqlMemoryProvenance from "./SqlMemoryProvenance.js"
import * as SqlMemoryStore from "./SqlMemoryStore.js"
import * as SqlWebhooks from "./SqlWebhooks.js"

/**
 * The whole storage stack from its parts: a (migrated) database, the signing key and the embedder
 * the store is pinned to. Provides MemoryStore, MemorySearch (served by the in-process index,
 * `IndexedMemorySearch`) and SearchIndex, MemoryProvenance, AccountStore and Ledger, and passes the
 * parts on.
 */
export const layer = <E1, E2, E3>(parts: {
  readonly database: Layer.Layer<SqlClient.SqlClient, E1>
  readonly signingKey: Layer.Layer<SigningKey, E2>
  readonly embedder: Layer.Layer<Embedder, E3>
  readonly ledger?: SqlLedger.SqlLedgerOptions
  readonly searchIndex?: IndexedMemorySearch.IndexOptions
}) =>
  Layer.mergeAll(
    SqlMemoryStore.layer,
    IndexedMemorySearch.layer(parts.searchIndex),
    SqlMemoryProvenance.layer,
    SqlAccountStore.layer,
    SqlWebhooks.layer
  ).pipe(
    Layer.provideMerge(SqlLedger.layer(parts.ledger)),
    Layer.provideMerge(parts.signingKey),
    Layer.provideMerge(parts.embedder),
    Layer.provideMerge(parts.database)
  )
