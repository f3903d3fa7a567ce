import { fixedScope, inScope, NotFoundError, type Scope, type UMOMemory } from "@umo/client"
import { type Tool, tool } from "ai"
import { z } from "zod"

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

/** What `searchMemories` gives the model, best first. */
export interface FoundMemories {
  readonly memories: ReadonlyArray<{
    readonly id: string
    readonly text: string
    readonly score: number
    /** When it was written. */
    readonly timestamp: string
    /** How many memories said this same text. */
    readonly timesSaid: number
  }>
}

/** What `answerFromMemories` gives the model: the answer with `[n]` markers and what they cite. */
export interface AnsweredFromMemories {
  readonly answer: string
  readonly citations: ReadonlyArray<{ readonly index: number; readonly id: string; readonly snippet: string }>
  readonly confidence: number
  /** `extractive`, `generative`, or `no_context` when nothing relevant was found. */
  readonly method: string
}

/** What `forgetMemory` gives the model: the signed deletion receipt. */
export interface Forgotten {
  readonly id: string
  readonly forgotten: boolean
  readonly deletedAt: string
  readonly receipt: string
}

/** The tools `umoTools` makes, by the names the model calls them (a `ToolSet`). */
export type UMOTools = {
  readonly remember: Tool<{ text: string; timestamp?: string | undefined }, Remembered>
  readonly searchMemories: Tool<{ query: string; limit?: number | undefined }, FoundMemories>
  readonly answerFromMemories: Tool<{ question: string }, AnsweredFromMemories>
  readonly forgetMemory: Tool<{ id: string }, Forgotten>
}

/**
 * UMO's verbs as AI SDK tools a model can call — `remember` (capture), `searchMemories` (ask),
 * `answerFromMemories` (answer) and `forgetMemory` (forget) — each inside `scope`, fixed here: the
 * model gives the text, the query or the id, never whose memories they are.
 *
 * `memory` is any `UMOMemory`: `new UMOClient(…)` for a server, or `await openMemory(…)` from
 * `@umo/memory` in-process. A failure is the client's own error (`ValidationError`,
 * `NotFoundError`, … with its `status` and `detail`), thrown from the tool's `execute`: the SDK
 * records it as the step's `tool-error` and tells the model its message, which carries the detail.
 *
 * ```ts
 * const result = await generateText({ model, tools: umoTools(umo, { userId: "ana" }), prompt, stopWhen: stepCountIs(3) })
 * ```
 */
export const umoTools = (memory: UMOMemory, scope: Scope): UMOTools => {
  const fixed = fixedScope(scope)
  return {
    remember: tool({
      description:
        "Save something worth remembering about the user to their long-term memory: a fact, preference, event, " +
        "decision or note. Write one self-contained statement with who, what and when (e.g. 'Ana's birthday is " +
        "12 March; she likes orchids'), not a transcript. When a fact changed ('she moved to Lisbon'), say the new " +
        "one: the memory stating the old value is superseded by itself. Returns the new memory's id.",
      inputSchema: z.object({
        text: z.string().describe("the statement to remember"),
        timestamp: z
          .string()
          .optional()
          .describe("when it happened (ISO 8601), if not now: 'yesterday' and 'next week' resolve against it")
      }),
      execute: async ({ text, timestamp }): Promise<Remembered> => {
        const captured = await memory.capture(text, timestamp === undefined ? fixed : { ...fixed, timestamp })
        return {
          id: captured.umoId,
          createdAt: captured.createdAt,
          supersedes: captured.supersedes,
          duplicateOf: captured.duplicateOf,
          warnings: captured.warnings
        }
      }
    }),
    searchMemories: tool({
      description:
        "Find the user's memories that best match a query (meaning and wording both count), best first, each with " +
        "its id, full text, relevance score and the time it was written. Use before answering anything that may " +
        "depend on what the user told you earlier. Memories a newer one replaced are left out.",
      inputSchema: z.object({
        query: z.string().describe("what to look for, in a few words or a question"),
        limit: z.number().int().optional().describe("how many memories, 1 to 100; default 5")
      }),
      execute: async ({ query, limit }): Promise<FoundMemories> => {
        const matches = await memory.ask(query, limit === undefined ? fixed : { ...fixed, limit })
        return {
          memories: matches.map((match) => ({
            id: match.umoId,
            text: match.content,
            score: match.score,
            timestamp: match.timestamp,
            timesSaid: match.timesSaid
          }))
        }
      }
    }),
    answerFromMemories: tool({
      description:
        "Answer a question from the user's memories only, with [n] citations naming the memories each part comes " +
        "from. The answer says so when the memories do not hold it; `confidence` (0 to 1) tells how far to trust " +
        "it. Prefer this over search when you need one short answer (a name, a date, a number, yes or no).",
      inputSchema: z.object({ question: z.string().describe("the question, as the user would ask it") }),
      execute: async ({ question }): Promise<AnsweredFromMemories> => {
        const answer = await memory.answer(question, fixed)
        return {
          answer: answer.text,
          citations: answer.citations.map((c) => ({ index: c.index, id: c.umoId, snippet: c.snippet })),
          confidence: answer.confidence,
          method: answer.method
        }
      }
    }),
    forgetMemory: tool({
      description:
        "Delete one of the user's memories for good, by the id search or remember gave: its text is erased and " +
        "cannot be recovered. Only when the user asks you to forget it. Returns a signed deletion receipt.",
      inputSchema: z.object({ id: z.string().describe("the memory's id") }),
      execute: async ({ id }): Promise<Forgotten> => {
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
    })
  }
}
