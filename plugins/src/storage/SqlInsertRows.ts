import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/**
 * PostgreSQL's wire protocol numbers a statement's parameters in 16 bits, and @effect/sql-pg
 * writes that number signed: at most 32,767 (more is "Failed to encode query").
 */
const maxParameters = 32_767

/**
 * Inserts rows in statements of at most `atMost` rows, and never more than 32,767 parameters
 * (rows × columns): 10,000 ledger entries go in a few statements rather than one the server
 * cannot bind.
 */
export const insertRows = (
  sql: SqlClient.SqlClient,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  atMost = Number.POSITIVE_INFINITY
): Effect.Effect<void, SqlError.SqlError> => {
  const columns = Math.max(1, Object.keys(rows[0] ?? {}).length)
  const size = Math.max(1, Math.min(atMost, Math.floor(maxParameters / columns)))
  return Effect.forEach(
    Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size)),
    ([first, ...rest]): Effect.Effect<void, SqlError.SqlError> =>
      first ? Effect.asVoid(sql`INSERT INTO ${sql(table)} ${sql.insert([first, ...rest])}`) : Effect.void,
    { discard: true }
  )
}
