/**
 * UMO's verbs for a model acting for one person (the agent frameworks' memory tools): remember,
 * search, answer and forget inside a scope fixed once, each with what a model reads of its result
 * and the words it is described by. Each framework wraps these in its own tool type and schema.
 * @module
 */
import { NotFoundError } from "./errors.js"
import { fixedScope, inScope } from "./scope.js"
import type { Scope, UMOMemory } from "./UMOMemory.js"

/** What `remember` gives the model: the new memory's id, and what the capture superseded or repeated. */
export interface Remembered {
  readonly id: string
  readonly createdAt: string
  /** The memories this one replaced (their facts changed). */
  readonly supersedes: ReadonlyArray<string>
  /** The current memory with the same text: nothing new was stored (null when something was). */
  readonly duplicateOf: string | null
  readonly warnings: ReadonlyArray<string>
}

/** What `search` gives the model, best first. */
export interface FoundMemories {
  readonly memories: ReadonlyArray<{
    readonly id: string
    readonly text: string
    readonly score: number
    /** When it was written. */
    readonly timestamp: string
    /** How many memories said this same text. */
    readonly timesSaid: number
    /** Later memories of the same person linked to this one (judge or nearness), newest first: they may update it. */
    readonly later: ReadonlyArray<{ readonly id: string; readonly text: string; readonly timestamp: string }>
  }>
}

/** What `answer` gives the model: the answer with `[n]` markers and what they cite. */
export interface AnsweredFromMemories {
  readonly answer: string
  readonly citations: ReadonlyArray<{ readonly index: number; readonly id: string; readonly snippet: string }>
  readonly confidence: number
  /** `extractive`, `generative`, or `no_context` when nothing relevant was found. */
  readonly method: string
}

/** What `forget` gives the model: the signed deletion receipt. */
export interface Forgotten {
  readonly id: string
  readonly forgotten: boolean
  readonly deletedAt: string
  readonly receipt: string
}

/** How each verb and its arguments are described to a model. */
export const scopedVerbWords = {
  remember:
    "Save something worth remembering about the user to their long-term memory: a fact, preference, event, " +
    "decision or note. Write one self-contained statement with who, what and when (e.g. 'Ana's birthday is " +
    "12 March; she likes orchids'), not a transcript. When a fact changed ('she moved to Lisbon'), say the new " +
    "one: the memory stating the old value is superseded by itself. Returns the new memory's id.",
  search:
    "Find the user's memories that best match a query (meaning and wording both count), best first, each with " +
    "its id, full text, relevance score and the time it was written. Use before answering anything that may " +
    "depend on what the user told you earlier. Memories a newer one replaced are left out.",
  answer:
    "Answer a question from the user's memories only, with [n] citations naming the memories each part comes " +
    "from. The answer says so when the memories do not hold it; `confidence` (0 to 1) tells how far to trust " +
    "it. Prefer this over search when you need one short answer (a name, a date, a number, yes or no).",
  forget:
    "Delete one of the user's memories for good, by the id search or remember gave: its text is erased and " +
    "cannot be recovered. Only when the user asks you to forget it. Returns a signed deletion receipt.",
  text: "the statement to remember",
  timestamp: "when it happened (ISO 8601), if not now: 'yesterday' and 'next week' resolve against it",
  query: "what to look for, in a few words or a question",
  limit: "how many memories, 1 to 50; default 5",
  question: "the question, as the user would ask it",
  id: "the memory's id"
} as const

/**
 * The four verbs inside `scope`, fixed here (refused when it names no one): the model gives the
 * text, the query or the id, never whose memories they are. `memory` is any `UMOMemory`: a
 * `UMOClient`, or `openMemory` from `@umo/memory`. A failure is the client's own error.
 */
export const scopedVerbs = (memory: UMOMemory, scope: Scope) => {
  const fixed = fixedScope(scope)
  return {
    remember: async ({
      text,
      timestamp
    }: {
      text: string
      timestamp?: string | undefined
    }): Promise<Remembered> => {
      const captured = await memory.capture(text, timestamp === undefined ? fixed : { ...fixed, timestamp })
      return {
        id: captured.umoId,
        createdAt: captured.createdAt,
        supersedes: captured.supersedes,
        duplicateOf: captured.duplicateOf,
        warnings: captured.warnings
      }
    },
    search: async ({
      query,
      limit
    }: {
      query: string
      limit?: number | undefined
    }): Promise<FoundMemories> => {
      const matches = await memory.ask(query, limit === undefined ? fixed : { ...fixed, limit })
      return {
        memories: matches.map((match) => ({
          id: match.umoId,
          text: match.content,
          score: match.score,
          timestamp: match.timestamp,
          timesSaid: match.timesSaid,
          later: match.laterRelated.map((l) => ({ id: l.umoId, text: l.content, timestamp: l.timestamp }))
        }))
      }
    },
    answer: async ({ question }: { question: string }): Promise<AnsweredFromMemories> => {
      const answer = await memory.answer(question, fixed)
      return {
        answer: answer.text,
        citations: answer.citations.map((c) => ({ index: c.index, id: c.umoId, snippet: c.snippet })),
        confidence: answer.confidence,
        method: answer.method
      }
    },
    forget: async ({ id }: { id: string }): Promise<Forgotten> => {
      // Ids are the whole account's: a memory outside the scope answers as one that does not exist,
      // so a model that names another user's id can neither erase it nor learn that it is there.
      if (!inScope(fixed, await memory.get(id))) {
        const detail = `no memory with id ${id}`
        throw new NotFoundError(`404: ${detail}`, 404, detail)
      }
      const receipt = await memory.forget(id)
      return {
        id: receipt.umoId,
        forgotten: receipt.forgotten,
        deletedAt: receipt.deletedAt,
        receipt: receipt.receipt
      }
    }
  }
}
