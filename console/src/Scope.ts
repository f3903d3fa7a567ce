/**
 * The scope the memory list, search and ask read within: an end user, an agent and a conversation
 * inside the account, and whether superseded memories count. It lives in the query string
 * (`?user_id=…&agent_id=…&session_id=…&include_superseded=true`, the API's own names), so it
 * survives a reload, goes with a link, and back/forward step through it.
 * @module
 */
import type { Scope, Selection } from "@umo/client"
import { useMemo } from "preact/hooks"
import { navigate, useSearch } from "./Router.js"

export interface ConsoleScope {
  /** "" where the scope does not narrow. */
  readonly userId: string
  readonly agentId: string
  readonly sessionId: string
  readonly includeSuperseded: boolean
}

/** Each scope field with its query-string name and the word the console shows for it. */
export const scopeFields = [
  ["userId", "user_id", "user"],
  ["agentId", "agent_id", "agent"],
  ["sessionId", "session_id", "session"]
] as const

export const noScope: ConsoleScope = { userId: "", agentId: "", sessionId: "", includeSuperseded: false }

/** The scope a query string names. */
export const scopeOf = (search: string): ConsoleScope => {
  const query = new URLSearchParams(search)
  const field = (name: string) => query.get(name)?.trim() ?? ""
  return {
    userId: field("user_id"),
    agentId: field("agent_id"),
    sessionId: field("session_id"),
    includeSuperseded: query.get("include_superseded") === "true"
  }
}

/** The query string of a scope: "" for none, else `?…`. */
export const scopeQuery = (scope: ConsoleScope): string => {
  const query = new URLSearchParams()
  for (const [field, name] of scopeFields) if (scope[field] !== "") query.set(name, scope[field])
  if (scope.includeSuperseded) query.set("include_superseded", "true")
  const text = query.toString()
  return text === "" ? "" : `?${text}`
}

/** Whether the scope names a user, agent or session (what erasing needs). */
export const namesScope = (scope: ConsoleScope) => scopeFields.some(([field]) => scope[field] !== "")

/** The user, agent and session set, as the client names them. */
export const scopeSelection = (scope: ConsoleScope): Scope =>
  Object.fromEntries(
    scopeFields.filter(([field]) => scope[field] !== "").map(([field]) => [field, scope[field]])
  )

/** What list, search and ask send for the scope. */
export const selectionOf = (scope: ConsoleScope): Selection => ({
  ...scopeSelection(scope),
  ...(scope.includeSuperseded ? { includeSuperseded: true } : {})
})

/** The scope in words: `user “ana”, agent “concierge”`; "" for none. */
export const describeScope = (scope: ConsoleScope) =>
  scopeFields
    .filter(([field]) => scope[field] !== "")
    .map(([field, , word]) => `${word} “${scope[field]}”`)
    .join(", ")

/** The scope of the address, and a way to set it (a new history entry, so Back undoes it). */
export const useScope = (): readonly [ConsoleScope, (next: ConsoleScope) => void] => {
  const search = useSearch()
  const scope = useMemo(() => scopeOf(search), [search])
  const setScope = (next: ConsoleScope) => {
    if (scopeQuery(next) !== scopeQuery(scope)) navigate(`${location.pathname}${scopeQuery(next)}`)
  }
  return [scope, setScope]
}
