import { Database } from "@umo/plugins"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A PostgreSQL database of a test's own beside the one CI provisions (`adminUrl`): created empty
 * (dropped first if a crashed run left it) and dropped after. Its URL is `url`.
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
  return {
    url: url.toString(),
    create: () => onAdmin([`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`]),
    drop: () => onAdmin([`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
  }
}
