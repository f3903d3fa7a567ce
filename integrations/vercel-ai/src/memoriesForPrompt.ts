import type { Scope, UMOMemory } from "@umo/client"
import { fixedScope } from "@umo/client"

export interface MemoriesForPromptOptions {
  /** How many memories at most, 1–50 (default 5). */
  readonly limit?: number
  /** The line above the memories (default: "What you remember about the user (most relevant first):"). */
  readonly heading?: string
}

/**
 * The memories in `scope` that best match `query`, as a block to put into a system prompt: one
 * line each with its id and the time it was written, best first. Empty ("") when none matched,
 * so the prompt can leave it out.
 *
 * ```ts
 * const system = `You are a helpful assistant.\n\n${await memoriesForPrompt(umo, userMessage, { userId: "ana" })}`
 * ```
 */
export const memoriesForPrompt = async (
  memory: UMOMemory,
  query: string,
  scope: Scope,
  options: MemoriesForPromptOptions = {}
): Promise<string> => {
  const fixed = fixedScope(scope)
  const matches = await memory.ask(query, { ...fixed, limit: options.limit ?? 5 })
  if (matches.length === 0) return ""
  const heading = options.heading ?? "What you remember about the user (most relevant first):"
  return [heading, ...matches.map((m) => `- [${m.umoId}] (${m.timestamp}) ${m.content}`)].join("\n")
}
