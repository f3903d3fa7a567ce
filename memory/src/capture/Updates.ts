import type { StatedFact, Umo } from "@umo/core"
import { statedFacts } from "@umo/plugins/nlp"
import { Config } from "effect"

/** Whether captures infer updates unless they say otherwise (`UMO_INFER_UPDATES`, default true). */
export const inferUpdatesConfig = Config.Boolean("UMO_INFER_UPDATES").pipe(Config.withDefault(true))

/**
 * Whose facts a memory states: its end user's when it has one, else its agent's, else the
 * account's. A conversation (`session_id`) does not bound them: where someone lives is still
 * where they live in the next conversation.
 */
export const factScope = (umo: Pick<Umo, "user_id" | "agent_id">): string =>
  umo.user_id !== null ? `user:${umo.user_id}` : umo.agent_id !== null ? `agent:${umo.agent_id}` : "account"

const separator = "\u001f"

/** The facts a memory states, each in its slot: its scope, subject and attribute, as one key. */
export const factsOf = (umo: Pick<Umo, "content" | "user_id" | "agent_id">): ReadonlyArray<StatedFact> => {
  const scope = factScope(umo)
  return statedFacts(umo.content).map((fact) => ({
    slot: [scope, fact.subject, fact.attribute].join(separator),
    value: fact.value,
    mode: fact.mode
  }))
}

/** The subject and attribute of a slot `factsOf` made. */
export const slotParts = (slot: string): { readonly subject: string; readonly attribute: string } => {
  const parts = slot.split(separator)
  return { subject: parts.at(-2) ?? "", attribute: parts.at(-1) ?? "" }
}
