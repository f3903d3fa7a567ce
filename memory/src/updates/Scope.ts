import { allOf, type MemoryFilter, type Umo } from "@umo/core"

/**
 * Whose memory is whose, for updates: a memory states facts of one person (its fact scope), and
 * only that person's later memories can make it out of date, or be linked to it.
 * @module
 */

/**
 * Whose facts a memory states: its end user's when it has one, else its agent's, else the
 * account's. A conversation (`session_id`) does not bound them: where someone lives is still
 * where they live in the next conversation.
 */
export const factScope = (umo: Pick<Umo, "user_id" | "agent_id">): string =>
  umo.user_id !== null ? `user:${umo.user_id}` : umo.agent_id !== null ? `agent:${umo.agent_id}` : "account"

const text = (field: "user_id" | "agent_id", value: string | null): MemoryFilter =>
  value === null
    ? { kind: "condition", field: { kind: "text", name: field }, op: "exists", value: false }
    : { kind: "condition", field: { kind: "text", name: field }, op: "eq", value }

/** The memories whose facts are the same person's as `umo`'s (see `factScope`). */
export const sameScope = (umo: Pick<Umo, "user_id" | "agent_id">): MemoryFilter =>
  umo.user_id !== null
    ? text("user_id", umo.user_id)
    : allOf([text("user_id", null), text("agent_id", umo.agent_id)])

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
/** Whether two texts say the same words (case, spacing and punctuation aside). */
export const sameWords = (a: string, b: string) => words(a) === words(b)
