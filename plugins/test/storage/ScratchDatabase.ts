import { Database } from "@umo/plugins"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A PostgreSQL database of a test's own beside the one CI provisions (`adminUrl`): created empty
 * (dropped first if a crashed run left it) and dropped after. Its URL is `url`; `layer` is the
 * migrated database, created when the layer is built and dropped when it is released. A database
 * of its own matters: the signing key ring is per database, and each test run has its own key.
 */
export const scratchDatabase = (adminUrl: string, name: string) => {
  const onAdmin = (statements: ReadonlyArray<string>) =>
    Effect.runPromise(
      Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.forEach(statements, (s) => sql.unsafe(s), { discard: true })
        ),
        Database.postgres(adminUrl)
      )
    )
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const create = () => onAdmin([`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`])
  const drop = () => onAdmin([`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
  return {
    url: url.toString(),
    create,
    drop,
    layer: Layer.unwrap(
      Effect.as(
        Effect.acquireRelease(Effect.promise(create), () => Effect.promise(drop)),
        Database.postgres(url.toString())
      )
    )
  }
}
