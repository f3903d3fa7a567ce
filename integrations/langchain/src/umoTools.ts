import { type StructuredToolInterface, tool } from "@langchain/core/tools"
import { fixedScope, inScope, NotFoundError, type Scope, type UMOMemory } from "@umo/client"
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
  const fixed = fixedScope(scope)
  return [
    tool(
      async ({ text, timestamp }) => {
        const captured = await memory.capture(text, timestamp === undefined ? fixed : { ...fixed, timestamp })
        return {
          id: captured.umoId,
          createdAt: captured.createdAt,
          supersedes: captured.supersedes,
          duplicateOf: captured.duplicateOf,
          warnings: captured.warnings
        }
      },
      {
        name: "remember",
        description:
          "Save something worth remembering about the user to their long-term memory: a fact, preference, event, " +
          "decision or note. Write one self-contained statement with who, what and when (e.g. 'Ana's birthday is " +
          "12 March; she likes orchids'), not a transcript. When a fact changed ('she moved to Lisbon'), say the " +
          "new one: the memory stating the old value is superseded by itself. Returns the new memory's id.",
        schema: z.object({
          text: z.string().describe("the statement to remember"),
          timestamp: z
            .string()
            .optional()
            .describe(
              "when it happened (ISO 8601), if not now: 'yesterday' and 'next week' resolve against it"
            )
        })
      }
    ),
    tool(
      async ({ query, limit }) => {
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
      },
      {
        name: "search_memories",
        description:
          "Find the user's memories that best match a query (meaning and wording both count), best first, each " +
          "with its id, full text, relevance score and the time it was written. Use before answering anything " +
          "that may depend on what the user told you earlier. Memories a newer one replaced are left out.",
        schema: z.object({
          query: z.string().describe("what to look for, in a few words or a question"),
          limit: z.number().int().optional().describe("how many memories, 1 to 100; default 5")
        })
      }
    ),
    tool(
      async ({ question }) => {
        const answer = await memory.answer(question, fixed)
        return {
          answer: answer.text,
          citations: answer.citations.map((c) => ({ index: c.index, id: c.umoId, snippet: c.snippet })),
          confidence: answer.confidence,
          method: answer.method
        }
      },
      {
        name: "answer_from_memories",
        description:
          "Answer a question from the user's memories only, with [n] citations naming the memories each part " +
          "comes from. The answer says so when the memories do not hold it; `confidence` (0 to 1) tells how far " +
          "to trust it. Prefer this over search when you need one short answer (a name, a date, a number, yes or no).",
        schema: z.object({ question: z.string().describe("the question, as the user would ask it") })
      }
    ),
    tool(
      async ({ id }) => {
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
      },
      {
        name: "forget_memory",
        description:
          "Delete one of the user's memories for good, by the id search or remember gave: its text is erased and " +
          "cannot be recovered. Only when the user asks you to forget it. Returns a signed deletion receipt.",
        schema: z.object({ id: z.string().describe("the memory's id") })
      }
    )
  ]
}
