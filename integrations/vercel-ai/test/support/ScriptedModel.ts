import { MockLanguageModelV4 } from "ai/test"

type CallOptions = Parameters<MockLanguageModelV4["doGenerate"]>[0]
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>

/** One tool call of the script: the tool, and its input made from what the previous call returned. */
export interface ScriptedCall {
  readonly tool: string
  readonly input: (previous: unknown) => Readonly<Record<string, unknown>>
}

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
}

/** What the last tool call gave the model, as the SDK put it into the prompt (`json` or `error-text`). */
export const lastToolOutput = (prompt: CallOptions["prompt"]): unknown => {
  const message = prompt.findLast((m) => m.role === "tool")
  const part =
    message?.role === "tool" ? message.content.findLast((p) => p.type === "tool-result") : undefined
  return part?.type === "tool-result" ? part.output : undefined
}

/**
 * The SDK's mock model, scripted: each step calls the next tool of `calls` (its input made from the
 * previous tool's output, as a model would read it), and once they are done it answers "Done.".
 */
export const scriptedModel = (calls: ReadonlyArray<ScriptedCall>) => {
  let step = 0
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const call = calls[step]
      step += 1
      if (call === undefined)
        return {
          content: [{ type: "text", text: "Done." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: []
        }
      const previous = lastToolOutput(prompt) as { type?: string; value?: unknown } | undefined
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `call-${step}`,
            toolName: call.tool,
            input: JSON.stringify(call.input(previous?.value))
          }
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: []
      }
    }
  })
}
