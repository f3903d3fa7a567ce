import { type Answer, AnswerModelError, type AnswerRequest, type Citation, clipText } from "@umo/core"
import { Effect } from "effect"
import { citationOf } from "./Citations.js"
import { questionType } from "./QuestionType.js"

export type Provider = "openai" | "anthropic"

export interface CloudModel {
  /** `<provider>:<model>`, as `/v1/ask` takes it. */
  readonly id: string
  readonly provider: Provider
  readonly model: string
}

/** The cloud models offered: two OpenAI, one Anthropic; each called with the caller's own key. */
export const cloudModels: ReadonlyArray<CloudModel> = [
  { id: "openai:gpt-4o-mini", provider: "openai", model: "gpt-4o-mini" },
  { id: "openai:gpt-4o", provider: "openai", model: "gpt-4o" },
  { id: "anthropic:claude-3-5-haiku-latest", provider: "anthropic", model: "claude-3-5-haiku-latest" }
]

export interface CloudEndpoints {
  /** OpenAI or any OpenAI-compatible server (Ollama, vLLM, llama.cpp); default https://api.openai.com. */
  readonly openaiBaseUrl: string
  readonly anthropicBaseUrl: string
  readonly timeoutMs?: number
}

const system =
  "You answer questions using only the numbered memories you are given. Cite every statement with " +
  "the number of the memory it comes from, in square brackets, like [1] or [2][3]. If the memories do " +
  "not contain the answer, say that you do not know. Be brief."

const prompt = (request: AnswerRequest) =>
  [
    "Memories:",
    ...request.contexts.map((c) => `[${c.index}] (written ${c.timestamp.slice(0, 10)}) ${c.content}`),
    "",
    `Question: ${request.question}`
  ].join("\n")

const failure = (model: string, reason: AnswerModelError["reason"], detail: string, cause?: unknown) =>
  new AnswerModelError({ reason, model, detail, cause })

const post = (
  model: CloudModel,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
  providerKey: string
) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs)
      })
      const text = await response.text()
      if (!response.ok) {
        // Providers put a message under error.message. Some quote the key they were given; the
        // caller's key is cut out, so it is never echoed or logged by us.
        const message = (() => {
          try {
            return (JSON.parse(text) as { error?: { message?: string } }).error?.message
          } catch {
            return undefined
          }
        })()?.replaceAll(providerKey, "[provider_key]")
        throw failure(
          model.id,
          "ProviderFailed",
          `${model.provider} answered ${response.status}${message ? `: ${message}` : ""}`
        )
      }
      return JSON.parse(text) as unknown
    },
    catch: (cause) =>
      cause instanceof AnswerModelError
        ? cause
        : failure(
            model.id,
            "ProviderFailed",
            `could not reach ${model.provider}: ${cause instanceof Error ? cause.message : String(cause)}`,
            cause
          )
  })

const completionText = (model: CloudModel, json: unknown): string | undefined =>
  model.provider === "openai"
    ? (json as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content
    : (json as { content?: Array<{ type?: string; text?: string }> }).content?.find((c) => c.type === "text")
        ?.text

/**
 * Asks a cloud model (OpenAI chat completions or Anthropic messages) to answer from the retrieved
 * memories with `[n]` citations; the markers in its answer are checked against the memories it was
 * given, and only those that exist become citations.
 */
export const answer = (model: CloudModel, endpoints: CloudEndpoints, request: AnswerRequest) =>
  Effect.gen(function* () {
    if (!request.providerKey) {
      return yield* failure(
        model.id,
        "MissingKey",
        `${model.id} needs your ${model.provider} key in provider_key`
      )
    }
    const timeout = endpoints.timeoutMs ?? 60_000
    const json =
      model.provider === "openai"
        ? yield* post(
            model,
            `${endpoints.openaiBaseUrl.replace(/\/+$/, "")}/v1/chat/completions`,
            { authorization: `Bearer ${request.providerKey}` },
            {
              model: model.model,
              temperature: 0,
              messages: [
                { role: "system", content: system },
                { role: "user", content: prompt(request) }
              ]
            },
            timeout,
            request.providerKey
          )
        : yield* post(
            model,
            `${endpoints.anthropicBaseUrl.replace(/\/+$/, "")}/v1/messages`,
            { "x-api-key": request.providerKey, "anthropic-version": "2023-06-01" },
            {
              model: model.model,
              max_tokens: 1024,
              system,
              messages: [{ role: "user", content: prompt(request) }]
            },
            timeout,
            request.providerKey
          )
    const text = completionText(model, json)?.trim()
    if (!text) return yield* failure(model.id, "InvalidResponse", `${model.provider} returned no answer text`)
    const cited = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))
    const citations: Array<Citation> = request.contexts
      .filter((c) => cited.has(c.index))
      .map((c) => citationOf(c, clipText(c.content, 240)))
    // Markers that point at no retrieved memory are removed rather than passed on.
    const checked = text.replace(/\[(\d+)\]/g, (marker, n) =>
      citations.some((c) => c.index === Number(n)) ? marker : ""
    )
    const confidence =
      citations.length === 0
        ? 0
        : citations.reduce((s, c) => s + Math.max(0, c.similarity), 0) / citations.length
    return {
      answer: checked.replace(/\s{2,}/g, " ").trim(),
      citations,
      confidence: Math.round(confidence * 1e4) / 1e4,
      method: "generative",
      question_type: questionType(request.question)
    } satisfies Answer
  })
