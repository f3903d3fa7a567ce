/**
 * The MCP server of one account's memories: the tools of `Tools.ts` and each memory as a resource
 * (`umo://memories/{id}`). It translates protocol requests into calls of the `Memory` service and
 * holds no logic of its own; the transport (stdio or Streamable HTTP) and the account are the
 * caller's choice, given as `run`.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { isMemoryError, Memory, type MemoryAccount } from "@umo/memory"
import { Cause, type Effect, Exit } from "effect"
import { memoryTools } from "./Tools.js"

/** Runs a call of the memory service for the session's account. */
export type RunMemory = <A, E>(
  effect: Effect.Effect<A, E, Memory | MemoryAccount>
) => Promise<Exit.Exit<A, E>>

export const serverInfo = { name: "umo", title: "UMO memory", version: "0.1.0" }

const instructions =
  "UMO is the user's long-term memory. Search it (or ask answer_question) before answering anything that " +
  "may depend on what the user said before; capture what they would want remembered, one self-contained " +
  "statement per memory; forget only when they ask. Memories are also resources at umo://memories/{id}."

/** MCP's code for an unknown resource (the specification's -32002). */
const resourceNotFound = -32002

const memoryUri = /^umo:\/\/memories\/([^/?#]+)$/
export const uriOf = (umoId: string) => `umo://memories/${umoId}`

/** Resources listed per page (an offset into the newest-first list is the cursor). */
const resourcePage = 100

/** A failure the service did not type is a bug: the caller learns only that it happened. */
const unexpected = (cause: Cause.Cause<unknown>) => {
  console.error(`umo mcp: internal error: ${Cause.pretty(cause)}`)
  return new McpError(ErrorCode.InternalError, "internal error")
}

/** The value, or the service's typed failure as `onFailure` makes it, or an internal error. */
const settle = async <A, E, B>(
  run: RunMemory,
  effect: Effect.Effect<A, E, Memory | MemoryAccount>,
  onSuccess: (value: A) => B,
  onFailure: (error: E & { readonly detail: string }) => B
): Promise<B> => {
  const exit = await run(effect)
  if (Exit.isSuccess(exit)) return onSuccess(exit.value)
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  if (isMemoryError(error)) return onFailure(error as E & { readonly detail: string })
  throw unexpected(exit.cause)
}

const cursorOffset = (cursor: string | undefined) => {
  if (cursor === undefined) return 0
  if (!/^\d{1,15}$/.test(cursor)) throw new McpError(ErrorCode.InvalidParams, "invalid cursor")
  return Number(cursor)
}

/** A new MCP server for the account `run` acts for; connect it to one transport. */
export const makeMemoryMcpServer = (run: RunMemory): Server => {
  const server = new Server(serverInfo, {
    capabilities: { tools: {}, resources: {} },
    instructions
  })

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: memoryTools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema: inputSchema as { type: "object" },
      outputSchema: outputSchema as { type: "object" },
      annotations
    }))
  }))

  server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const tool = memoryTools.find((t) => t.name === request.params.name)
    if (tool === undefined)
      throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name.slice(0, 100)}`)
    return settle(
      run,
      Memory.use((memory) => tool.call(memory, request.params.arguments ?? {})),
      (result): CallToolResult => ({
        content: [tool.text(result as never)].flat().map((text) => ({ type: "text" as const, text })),
        structuredContent: result as Record<string, unknown>
      }),
      // A broken rule or a missing memory is the model's to read and correct, not a protocol error.
      (error): CallToolResult => ({ content: [{ type: "text", text: error.detail }], isError: true })
    )
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: "umo://memories/{id}",
        name: "memory",
        title: "A memory",
        description: "One memory: its text and everything extracted from it, as JSON",
        mimeType: "application/json"
      }
    ]
  }))

  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const offset = cursorOffset(request.params?.cursor)
    return settle(
      run,
      Memory.use((memory) => memory.list({ limit: resourcePage, offset })),
      (page) => ({
        resources: page.items.map((item) => ({
          uri: uriOf(item.umo_id),
          name: item.umo_id,
          title: item.summary.slice(0, 200),
          mimeType: "application/json"
        })),
        ...(page.has_more ? { nextCursor: String(offset + page.items.length) } : {})
      }),
      (error) => {
        throw new McpError(ErrorCode.InvalidParams, error.detail)
      }
    )
  })

  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const uri = request.params.uri
    const id = memoryUri.exec(uri)?.[1]
    if (id === undefined)
      throw new McpError(resourceNotFound, "not a memory: memory resources are umo://memories/{id}", { uri })
    return settle(
      run,
      Memory.use((memory) => memory.get(decodeURIComponent(id))),
      (record) => ({
        contents: [{ uri, mimeType: "application/json", text: JSON.stringify(record, null, 2) }]
      }),
      (error) => {
        throw new McpError(resourceNotFound, error.detail, { uri })
      }
    )
  })

  return server
}
