/**
 * The account's end users, agents and conversations: each with how many current memories it holds
 * and the newest one's time, most recently active first.
 * @module
 */
import type { ScopeKind, ScopePage, ScopesOptions } from "@umo/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { isoUtc } from "./SqlFailure.js"

const columns: Record<ScopeKind, string> = { user: "user_id", agent: "agent_id", session: "session_id" }

export const listScopes = (
  sql: SqlClient.SqlClient,
  accountId: string,
  options: ScopesOptions
): Effect.Effect<ScopePage, SqlError> =>
  Effect.gen(function* () {
    const kinds = options.kind === undefined ? (["user", "agent", "session"] as const) : [options.kind]
    // One grouped scan per kind asked, each on the account's current memories alone.
    const groups = kinds.map(
      (
        kind
      ) => sql`SELECT ${kind}::text AS kind, ${sql.unsafe(columns[kind])} AS id, count(*)::int AS memories,
          max(content_time) AS last_time
        FROM memories
        WHERE account_id = ${accountId} AND superseded_by IS NULL AND ${sql.unsafe(columns[kind])} IS NOT NULL
          ${options.prefix === undefined ? sql`` : sql`AND starts_with(${sql.unsafe(columns[kind])}, ${options.prefix})`}
        GROUP BY 2`
    )
    const union = groups.reduce((all, group) => sql`${all} UNION ALL ${group}`)
    const rows = yield* sql<{
      kind: ScopeKind
      id: string
      memories: number
      last_memory_at: string
      total: number
    }>`SELECT kind, id, memories, ${sql.unsafe(isoUtc("last_time"))} AS last_memory_at, count(*) OVER ()::int AS total
      FROM (${union}) AS scopes
      ORDER BY last_time DESC, kind, id
      LIMIT ${options.limit} OFFSET ${options.offset}`
    const total =
      rows[0]?.total ??
      (options.offset === 0
        ? 0
        : Number(
            (yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM (${union}) AS scopes`)[0]
              ?.total ?? 0
          ))
    return {
      items: rows.map(({ total: _total, ...row }) => ({ ...row, memories: Number(row.memories) })),
      total: Number(total)
    }
  })
