import {
  type AnsweredFromMemories,
  type Forgotten,
  type FoundMemories,
  type Remembered,
  type Scope,
  scopedVerbs,
  type UMOMemory,
  scopedVerbWords as words
} from "@umo/client"
import { type Tool, tool } from "ai"
import { z } from "zod"

export type { AnsweredFromMemories, Forgotten, FoundMemories, Remembered }

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
  const verbs = scopedVerbs(memory, scope)
  return {
    remember: tool({
      description: words.remember,
      inputSchema: z.object({
        text: z.string().describe(words.text),
        timestamp: z.string().optional().describe(words.timestamp)
      }),
      execute: verbs.remember
    }),
    searchMemories: tool({
      description: words.search,
      inputSchema: z.object({
        query: z.string().describe(words.query),
        limit: z.number().int().optional().describe(words.limit)
      }),
      execute: verbs.search
    }),
    answerFromMemories: tool({
      description: words.answer,
      inputSchema: z.object({ question: z.string().describe(words.question) }),
      execute: verbs.answer
    }),
    forgetMemory: tool({
      description: words.forget,
      inputSchema: z.object({ id: z.string().describe(words.id) }),
      execute: verbs.forget
    })
  }
}
