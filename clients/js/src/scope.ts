/**
 * A scope fixed for the faces that act for one person (the agent frameworks' tools, retrievers and
 * histories): the model or chain they serve gives texts and ids, never whose memories they are.
 * @module
 */
import { ValidationError } from "./errors.js"
import type { Scope } from "./UMOMemory.js"

const scopeFields = ["userId", "agentId", "sessionId"] as const

/**
 * The caller's scope, copied once: only `userId`, `agentId` and `sessionId`, at least one of them.
 * Every call the tools make carries it, so a model can neither widen it nor name another user's.
 */
export const fixedScope = (scope: Scope): Scope => {
  const fixed: Record<string, string> = {}
  for (const field of scopeFields) {
    const value = scope?.[field]
    if (value === undefined) continue
    if (typeof value !== "string") throw refused(`${field}: must be a string`)
    fixed[field] = value
  }
  // An empty scope would be the whole account: every user's memories.
  if (Object.keys(fixed).length === 0) throw refused("a scope needs a userId, an agentId or a sessionId")
  return Object.freeze(fixed)
}

/** Whether a memory (as `get` returns it) lies inside the scope: each field the scope sets is the memory's. */
export const inScope = (
  scope: Scope,
  memory: {
    readonly userId: string | null
    readonly agentId: string | null
    readonly sessionId: string | null
  }
): boolean => scopeFields.every((field) => scope[field] === undefined || scope[field] === memory[field])

const refused = (detail: string) =>
  new ValidationError(`422: invalid scope: ${detail}`, 422, `invalid scope: ${detail}`)
