/**
 * What Mem0's `add` remembers: its `messages` (a string, one message, or a list of them) read into
 * the texts UMO captures, one per message of the user or the assistant, in order, each with its
 * role. UMO keeps what was said as it was said, so a message is a memory of its own; a system
 * message instructs a model and says nothing to remember, so it is left out, as is a message with
 * no visible text (an assistant's turn that only called a tool).
 * @module
 */
import { Result } from "effect"
import { invalid, isObject, type Mem0Refused, unsupported } from "./Mem0Fields.js"

/** A message to capture: its place in the request (for errors), role and text. */
export interface TextMessage {
  readonly index: number
  readonly role: "user" | "assistant"
  readonly content: string
}

/** Most texts one add captures: UMO captures them as one batch, which holds 1 to 100 items. */
export const maxMessages = 100

const roles = new Set(["user", "assistant", "system"])

/** A message's text: a string, a `{type: "text"}` part, or a list of such parts (joined by lines). */
const textOf = (content: unknown, path: string): Result.Result<string, Mem0Refused> => {
  if (typeof content === "string") return Result.succeed(content)
  const parts = Array.isArray(content) ? content : [content]
  const texts: Array<string> = []
  for (const [i, part] of parts.entries()) {
    const at = Array.isArray(content) ? `${path}.${i}` : path
    if (!isObject(part) || typeof part["type"] !== "string")
      return Result.fail(invalid(at, "must be text, or a {type, text} part"))
    if (part["type"] !== "text")
      return Result.fail(unsupported(`${at}.type: ${part["type"]}`, "UMO's Mem0 API remembers text messages"))
    if (typeof part["text"] !== "string") return Result.fail(invalid(`${at}.text`, "must be text"))
    texts.push(part["text"])
  }
  return Result.succeed(texts.join("\n"))
}

/** The messages of an add, as Mem0's clients send them, read into the texts to capture. */
export const textMessages = (messages: unknown): Result.Result<ReadonlyArray<TextMessage>, Mem0Refused> => {
  if (messages === undefined || messages === null)
    return Result.fail(invalid("messages", "is required: the conversation to remember"))
  const list = typeof messages === "string" ? [{ role: "user", content: messages }] : messages
  const listed = Array.isArray(list) ? list : [list]
  const found: Array<TextMessage> = []
  for (const [index, message] of listed.entries()) {
    const at = Array.isArray(list) ? `messages.${index}` : "messages"
    if (!isObject(message)) return Result.fail(invalid(at, "must be a message: {role, content}"))
    for (const key of Object.keys(message))
      if (key !== "role" && key !== "content") return Result.fail(unsupported(`${at}.${key}`))
    const role = message["role"]
    if (typeof role !== "string" || !roles.has(role))
      return Result.fail(invalid(`${at}.role`, "must be user, assistant or system"))
    const content = textOf(message["content"], `${at}.content`)
    if (Result.isFailure(content)) return Result.fail(content.failure)
    if (role === "system" || content.success.trim().length === 0) continue
    found.push({ index, role: role as TextMessage["role"], content: content.success })
  }
  if (found.length === 0)
    return Result.fail(invalid("messages", "holds no message of the user or the assistant with text"))
  if (found.length > maxMessages)
    return Result.fail(
      invalid(
        "messages",
        `at most ${maxMessages} messages with text in one add (UMO captures them as one batch)`
      )
    )
  return Result.succeed(found)
}
