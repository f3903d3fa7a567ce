import { type StructuredToolInterface, tool } from "@langchain/core/tools"
import { type Scope, scopedVerbs, type UMOMemory, scopedVerbWords as words } from "@umo/client"
import { z } from "zod"

/**
 * UMO's verbs as LangChain tools a model can call — `remember` (capture), `search_memories` (ask),
 * `answer_from_memories` (answer) and `forget_memory` (forget) — each inside `scope`, fixed here:
 * the model gives the text, the query or the id, never whose memories they are. Bind them to a
 * chat model (`model.bindTools(tools)`) or give them to an agent. Each returns an object (a
 * `ToolMessage` carries it as JSON); a failure is the client's own error (`ValidationError`,
 * `NotFoundError`, … with its `status` and `detail`), thrown as it is.
 */
export const umoTools = (memory: UMOMemory, scope: Scope): Array<StructuredToolInterface> => {
  const verbs = scopedVerbs(memory, scope)
  return [
    tool(verbs.remember, {
      name: "remember",
      description: words.remember,
      schema: z.object({
        text: z.string().describe(words.text),
        timestamp: z.string().optional().describe(words.timestamp)
      })
    }),
    tool(verbs.search, {
      name: "search_memories",
      description: words.search,
      schema: z.object({
        query: z.string().describe(words.query),
        limit: z.number().int().optional().describe(words.limit)
      })
    }),
    tool(verbs.answer, {
      name: "answer_from_memories",
      description: words.answer,
      schema: z.object({ question: z.string().describe(words.question) })
    }),
    tool(verbs.forget, {
      name: "forget_memory",
      description: words.forget,
      schema: z.object({ id: z.string().describe(words.id) })
    })
  ]
}
