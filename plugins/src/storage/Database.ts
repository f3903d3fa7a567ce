import { join } from "node:path"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { migrate } from "./migrations/index.js"
import * as PgliteSqlClient from "./PgliteSqlClient.js"
import { withStartupLock } from "./StartupLock.js"

/**
 * Runs the schema migrations once the client is up, so every user of the layer sees the schema;
 * processes starting together take turns.
 */
const migrated = <E>(client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Layer.effectDiscard(withStartupLock(migrate)).pipe(Layer.provideMerge(client))

/** PGlite in `dataDir` (or in memory), migrated. */
export const pglite = (options: PgliteSqlClient.PgliteOptions = {}) =>
  migrated(PgliteSqlClient.layer(options))

/** PostgreSQL (with pgvector available) at `url`, migrated. */
export const postgres = (url: string) => migrated(PgClient.layer({ url: Redacted.make(url) }))

/**
 * The database the service runs on: PostgreSQL when `DATABASE_URL` is set, else PGlite in
 * `UMO_DATA_DIR/pglite` (default `./data/pglite`). Migrations run before anything uses it.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const url = yield* Config.option(Config.String("DATABASE_URL"))
    if (Option.isSome(url)) return postgres(url.value)
    const dataDir = yield* Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data"))
    return pglite({ dataDir: join(dataDir, "pglite") })
  })
)
