/**
 * Who a memory belongs to inside its account, and what the caller tagged it with. An account is
 * the API key's owner (an app); inside it, `user_id`, `agent_id` and `session_id` name the end
 * user, the agent and the conversation (Mem0's names, so its users map one to one), and
 * `metadata` is a flat object of the caller's own tags. All of it is covered by the memory's
 * `record_hash`, so a proof covers it too. The limits a caller must keep are the API's
 * (`@umo/memory`'s `Fields`); these schemas say only what a stored memory holds.
 * @module
 */
import { Schema } from "effect"

/** One metadata value: a string, a number, a boolean, null or a list of strings. */
export const MetadataValue = Schema.Union([
  Schema.String,
  Schema.Finite,
  Schema.Boolean,
  Schema.Null,
  Schema.Array(Schema.String)
])
export type MetadataValue = typeof MetadataValue.Type

/** A flat object of the caller's tags. */
export const Metadata = Schema.Record(Schema.String, MetadataValue)
export type Metadata = typeof Metadata.Type

/** The scope fields of a memory: each null when the caller gave none. */
export const ScopeFields = {
  user_id: Schema.NullOr(Schema.String),
  agent_id: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String)
}

export const Scope = Schema.Struct(ScopeFields)
export type Scope = typeof Scope.Type

/** The names of the scope fields, in the order the API lists them. */
export const scopeNames = ["user_id", "agent_id", "session_id"] as const
export type ScopeName = (typeof scopeNames)[number]

/** No scope: a memory of the account as a whole. */
export const noScope: Scope = { user_id: null, agent_id: null, session_id: null }
