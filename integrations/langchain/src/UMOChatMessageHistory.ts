import { BaseListChatMessageHistory } from "@langchain/core/chat_history"
import { AIMessage, type BaseMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages"
import { fixedScope, type MetadataValue, type Scope, type UMOMemory, ValidationError } from "@umo/client"

export interface UMOChatMessageHistoryInput {
  /** `new UMOClient(…)` (`@umo/client`) or `await openMemory(…)` (`@umo/memory`). */
  readonly memory: UMOMemory
  /** The conversation: its `sessionId`, and the `userId` and `agentId` it belongs to if any. */
  readonly scope: Scope
  /** The `source` each turn is captured with, which tells turns from other memories (default `chat`). */
  readonly source?: string
}

/**
 * A LangChain chat message history kept in UMO: each message is a memory of the conversation's
 * scope (its session, and its user and agent), with the message's type (and name, role or tool
 * call id, and an AI message's tool calls) as metadata and `source` `chat`. Its turns are memories like any other: search,
 * answer, proofs and `forgetAll` reach them. `getMessages` reads the session's turns back oldest
 * first, with their text as UMO normalized it.
 *
 * Each message is captured as said, never as a repeat of an earlier one (`dedupe: false`): "yes"
 * twice is two turns. A message with no text (an AI message that only calls tools) is refused
 * by UMO (422), as every empty capture is; UMO's errors pass through with their `detail`.
 */
export class UMOChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["umo", "chat_history"]
  readonly #memory: UMOMemory
  readonly #scope: Scope
  readonly #source: string

  constructor({ memory, scope, source = "chat" }: UMOChatMessageHistoryInput) {
    super()
    this.#memory = memory
    this.#scope = fixedScope(scope)
    if (this.#scope.sessionId === undefined) {
      const detail = "invalid scope: a chat history needs a sessionId"
      throw new ValidationError(`422: ${detail}`, 422, detail)
    }
    this.#source = source
  }

  /** The conversation's messages, oldest first. */
  async getMessages(): Promise<Array<BaseMessage>> {
    const turns = []
    // Superseded turns too: a turn that updated a fact is still what was said.
    for await (const turn of this.#memory.iterate({
      ...this.#scope,
      source: this.#source,
      includeSuperseded: true,
      limit: 100
    }))
      turns.push(turn)
    // The list is newest first; each turn's full text is its memory's.
    const memories = await Promise.all(turns.reverse().map((turn) => this.#memory.get(turn.umoId)))
    return mapStoredMessagesToChatMessages(
      memories.map(({ contentText, metadata }) => ({
        type: String(metadata.message_type ?? "human"),
        data: {
          content: contentText,
          role: optional(metadata.message_role),
          name: optional(metadata.message_name),
          tool_call_id: optional(metadata.tool_call_id),
          ...(typeof metadata.tool_calls === "string" ? { tool_calls: JSON.parse(metadata.tool_calls) } : {})
        }
      }))
    )
  }

  /** Captures one message as a memory of the conversation. */
  async addMessage(message: BaseMessage): Promise<void> {
    const fields = message.toDict().data
    const metadata: Record<string, MetadataValue> = { message_type: message.type }
    if (fields.role !== undefined) metadata.message_role = fields.role
    if (fields.name !== undefined) metadata.message_name = fields.name
    if (fields.tool_call_id !== undefined) metadata.tool_call_id = fields.tool_call_id
    // An AI turn's tool calls, as JSON (a metadata value holds 1,000 characters: past that, UMO's
    // 422 names `metadata.tool_calls`): a replayed history keeps each tool result after its call.
    if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0)
      metadata.tool_calls = JSON.stringify(message.tool_calls)
    await this.#memory.capture(message.text, {
      ...this.#scope,
      source: this.#source,
      metadata,
      dedupe: false
    })
  }

  /** Forgets the conversation's turns (its other memories stay), with one signed receipt. */
  override async clear(): Promise<void> {
    await this.#memory.forgetAll({ ...this.#scope, source: this.#source })
  }
}

const optional = (value: MetadataValue | undefined): string | undefined =>
  typeof value === "string" ? value : undefined
