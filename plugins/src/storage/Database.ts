import { join } from "node:path"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { distributeByAccount } from "./CitusDistribution.js"
import { migrate } from "./migrations/index.js"
import * as PgliteSqlClient from "./PgliteSqlClient.js"
import { describeHost, parsePostgresUrl, primaryLocator } from "./PostgresHosts.js"
import * as ReadReplicas from "./ReadReplicas.js"
import { isUnavailable } from "./SqlFailure.js"
import { withStartupLock } from "./StartupLock.js"

/**
 * Runs the schema migrations once the client is up, so every user of the layer sees the schema;
 * processes starting together take turns. On a Citus coordinator, the tables are then distributed
 * by account (`CitusDistribution`), in a transaction of its own: Citus copies a table to its shards
 * over other connections, which must see the table committed.
 */
const migrated = <E>(client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Layer.effectDiscard(Effect.andThen(withStartupLock(migrate), withStartupLock(distributeByAccount))).pipe(
    Layer.provideMerge(client)
  )

/** PGlite in `dataDir` (or in memory), migrated. */
export const pglite = (options: PgliteSqlClient.PgliteOptions = {}) =>
  migrated(PgliteSqlClient.layer(options))

/** The database could not be used as configured: a read replica that is not one, an unreadable URL. */
export class DatabaseRefused extends Schema.Error<DatabaseRefused>("DatabaseRefused")({
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/** Whether a URL's host part names several servers (`postgres://h1:5432,h2:5432/db`). */
const severalHosts = (url: string) => /^postgres(?:ql)?:\/\/(?:[^@/]*@)?[^/?#]*,/.test(url)

/**
 * How long a new session may take to connect and authenticate, unless the URL says
 * (`connect_timeout`). The client's own 5 s is timed on this process's event loop, which a burst
 * of captures can hold for seconds on a loaded machine (an embedder or the fact finder on the main
 * thread): the timer then fires before the server's waiting answer is read, and a healthy database
 * was called unavailable (503s in the replica test, under CI). libpq waits indefinitely by default.
 */
const defaultConnectTimeout = "15 seconds"

const namesConnectTimeout = (url: string) => {
  try {
    return new URL(url).searchParams.has("connect_timeout")
  } catch {
    return false
  }
}

/**
 * The primary's client. A URL naming several servers connects each new session to the one that
 * accepts writes, found again once a connection to it fails (see `primaryLocator`): after a
 * standby is promoted, the pool's new sessions reach it, with no restart.
 */
const primaryClient = (url: string) => {
  if (!severalHosts(url))
    return PgClient.layer({
      url: Redacted.make(url),
      ...(namesConnectTimeout(url) ? {} : { connectTimeout: defaultConnectTimeout })
    })
  return Layer.unwrap(
    Effect.try({
      try: () => parsePostgresUrl(url),
      catch: (error) =>
        new DatabaseRefused({ detail: `DATABASE_URL cannot be read: ${(error as Error).message}` })
    }).pipe(
      Effect.map((target) => {
        const locator = primaryLocator(target)
        return PgClient.layer({
          stream: locator.stream,
          host: target.hosts[0]!.host,
          port: target.hosts[0]!.port,
          username: target.username,
          password: target.password === undefined ? undefined : Redacted.make(target.password),
          database: target.database,
          connectTimeout:
            target.connectTimeoutSeconds === undefined
              ? defaultConnectTimeout
              : (`${target.connectTimeoutSeconds} seconds` as const),
          ...(target.applicationName === undefined ? {} : { applicationName: target.applicationName })
        })
      })
    )
  )
}

/**
 * What a server says of itself: role, system identifier, schema version (0 before the first
 * migration: a standby that has not replayed the schema yet, or another, empty database).
 */
const identity = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const [row] = yield* sql<{ standby: boolean; system: string; migrated: boolean }>`
      SELECT pg_is_in_recovery() AS standby, (SELECT system_identifier::text FROM pg_control_system()) AS system,
        to_regclass('umo_migrations') IS NOT NULL AS migrated`
    const [version] = row!.migrated
      ? yield* sql<{ version: number | null }>`SELECT max(migration_id) AS version FROM umo_migrations`
      : [{ version: 0 }]
    return { standby: row!.standby, system: row!.system, version: Number(version?.version ?? 0) }
  })

/**
 * A read replica, checked at start: a hot standby of the primary's own database (the same system
 * identifier, so the same chains and keys) that has replayed its schema. One that accepts writes,
 * or belongs to another database, or stays at another schema version, is refused with a message
 * saying which; one that cannot be reached is kept, with a warning, and reads skip it until it answers.
 */
const replica = (primary: SqlClient.SqlClient, url: string) =>
  Effect.gen(function* () {
    const name = (() => {
      try {
        return parsePostgresUrl(url).hosts.map(describeHost).join(",")
      } catch {
        return "a read replica"
      }
    })()
    const refused = (why: string) => new DatabaseRefused({ detail: `UMO_DATABASE_READ_URLS: ${name} ${why}` })
    const client = yield* PgClient.make({ url: Redacted.make(url), connectTimeout: "3 seconds" })
    const expected = yield* identity(primary)
    for (let waited = 0; ; waited += 200) {
      const found = yield* Effect.exit(identity(client))
      if (found._tag === "Failure") {
        const error = Cause.squash(found.cause)
        if (!isUnavailable(error))
          return yield* refused(
            `could not be checked: ${error instanceof Error ? error.message : String(error)}`
          )
        yield* Effect.logWarning(
          `read replica ${name} cannot be reached at start; reads go to the primary until it answers`,
          found.cause
        )
        break
      }
      const seen = found.value
      if (!seen.standby)
        return yield* refused(
          "accepts writes, so it is not a hot standby of DATABASE_URL; name the primary's streaming replicas only"
        )
      if (seen.system !== expected.system)
        return yield* refused(
          `is not a replica of DATABASE_URL's database (system identifier ${seen.system}, the primary's ${expected.system})`
        )
      if (seen.version === expected.version) break
      if (waited >= 10_000)
        return yield* refused(
          `has schema version ${seen.version}, the primary ${expected.version}, after 10 s: it is not replaying the primary`
        )
      yield* Effect.sleep("200 millis")
    }
    return { name, client }
  })

export interface PostgresOptions {
  /** Hot standbys of the primary that reads go to once they have caught up (see `ReadReplicas`). */
  readonly readUrls?: ReadonlyArray<string> | undefined
  readonly replicas?: ReadReplicas.ReplicaOptions | undefined
}

/**
 * PostgreSQL (with pgvector available) at `url`, migrated; `url` may name several servers, the
 * primary and its standbys, and the sessions follow whichever accepts writes. With `readUrls`,
 * reads go to those replicas (`ReadSqlClient`), each checked at start.
 */
export const postgres = (url: string, options: PostgresOptions = {}) => {
  const primary = migrated(primaryClient(url))
  const readUrls = options.readUrls ?? []
  if (readUrls.length === 0) return primary
  return Layer.effect(
    ReadReplicas.ReadSqlClient,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const replicas = yield* Effect.forEach(readUrls, (url) => replica(sql, url))
      return yield* ReadReplicas.make(sql, replicas, options.replicas)
    })
  ).pipe(Layer.provide(Reactivity.layer), Layer.provideMerge(primary))
}

/**
 * The database the service runs on: PostgreSQL when `DATABASE_URL` is set (reads also on the hot
 * standbys of `UMO_DATABASE_READ_URLS`, comma-separated), else PGlite in `UMO_DATA_DIR/pglite`
 * (default `./data/pglite`). Migrations run before anything uses it.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const url = yield* Config.option(Config.String("DATABASE_URL"))
    if (Option.isSome(url)) {
      const readUrls = yield* Config.String("UMO_DATABASE_READ_URLS").pipe(Config.withDefault(""))
      const maxWaitMs = yield* Config.Int("UMO_READ_REPLICA_MAX_WAIT_MS").pipe(Config.withDefault(100))
      return postgres(url.value, {
        readUrls: readUrls
          .split(/[\s,]+/)
          .map((u) => u.trim())
          .filter((u) => u.length > 0),
        replicas: { maxWaitMs }
      })
    }
    const dataDir = yield* Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data"))
    return pglite({ dataDir: join(dataDir, "pglite") })
  })
)
