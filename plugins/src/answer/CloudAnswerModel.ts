import { AnswerModelError, type AnswerModelShape, type AnswerRequest } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { generatedAnswer } from "./Citations.js"

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
  "the number of the memory it comes from, in square brackets, like [1] or [2][3]. A memory marked " +
  '"since replaced" says what was true before a newer memory changed it: answer what is true now from ' +
  "the newer one, unless the question asks about the past. If the memories do not contain the answer, say " +
  "that you do not know. Be brief."

const prompt = (request: AnswerRequest) =>
  [
    "Memories:",
    ...request.contexts.map(
      (c) =>
        `[${c.index}] (written ${c.timestamp.slice(0, 10)}${c.outdated ? "; since replaced" : ""}${c.current ? "; the newest on what is asked" : ""}) ${c.content}`
    ),
    "",
    `Question: ${request.question}`
  ].join("\n")

const failure = (model: string, reason: AnswerModelError["reason"], detail: string, cause?: unknown) =>
  new AnswerModelError({ reason, model, detail, cause })

/** The message a provider puts in its error body (`error.message` at both), or undefined. */
const providerMessage = (text: string): string | undefined => {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message
    return typeof message === "string" ? message : undefined
  } catch {
    return undefined
  }
}

const completionText = (model: CloudModel, json: unknown): string | undefined =>
  model.provider === "openai"
    ? (json as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content
    : (json as { content?: Array<{ type?: string; text?: string }> }).content?.find((c) => c.type === "text")
        ?.text

/** The provider's request for an answer: its endpoint, its way of sending the key, its body. */
const providerRequest = (
  model: CloudModel,
  endpoints: CloudEndpoints,
  request: AnswerRequest,
  key: string
) =>
  model.provider === "openai"
    ? HttpClientRequest.post(`${endpoints.openaiBaseUrl.replace(/\/+$/, "")}/v1/chat/completions`).pipe(
        HttpClientRequest.bearerToken(key),
        HttpClientRequest.bodyJsonUnsafe({
          model: model.model,
          temperature: 0,
          messages: [
            { role: "system", content: system },
            { role: "user", content: prompt(request) }
          ]
        })
      )
    : HttpClientRequest.post(`${endpoints.anthropicBaseUrl.replace(/\/+$/, "")}/v1/messages`).pipe(
        HttpClientRequest.setHeaders({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
        HttpClientRequest.bodyJsonUnsafe({
          model: model.model,
          max_tokens: 1024,
          system,
          messages: [{ role: "user", content: prompt(request) }]
        })
      )

/**
 * A cloud model (OpenAI chat completions or Anthropic messages) as an answer model: it answers
 * from the retrieved memories with `[n]` citations, and the markers in its answer are checked
 * against the memories it was given; only those that exist become citations. Calls go through the
 * `HttpClient` it is built with, retried on transient failures (429, 5xx, a lost connection) and
 * cut off after `timeoutMs`. The caller's key is sent to the provider only, and cut out of any
 * message the provider answers with, so it is never echoed or logged.
 */
export const make = (model: CloudModel, endpoints: CloudEndpoints) =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.retryTransient({ times: 2 }))
    const timeoutMs = endpoints.timeoutMs ?? 60_000

    const call = (request: AnswerRequest, key: string) =>
      Effect.gen(function* () {
        const response = yield* http.execute(providerRequest(model, endpoints, request, key))
        const text = yield* response.text
        if (response.status >= 300) {
          const message = providerMessage(text)?.replaceAll(key, "[provider_key]")
          return yield* failure(
            model.id,
            "ProviderFailed",
            `${model.provider} answered ${response.status}${message ? `: ${message}` : ""}`
          )
        }
        return yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: (cause) =>
            failure(model.id, "InvalidResponse", `${model.provider} answered with no JSON`, cause)
        })
      }).pipe(
        Effect.catchTag("HttpClientError", (cause) =>
          Effect.fail(
            failure(
              model.id,
              "ProviderFailed",
              `could not reach ${model.provider}: ${cause.reason._tag}`,
              cause
            )
          )
        ),
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () =>
            Effect.fail(
              failure(
                model.id,
                "ProviderFailed",
                `${model.provider} did not answer within ${timeoutMs / 1000} s`
              )
            )
        })
      )

    const answer = (request: AnswerRequest) =>
      Effect.gen(function* () {
        if (!request.providerKey) {
          return yield* failure(
            model.id,
            "MissingKey",
            `${model.id} needs your ${model.provider} key in provider_key`
          )
        }
        const json = yield* call(request, request.providerKey)
        const text = completionText(model, json)?.trim()
        if (!text)
          return yield* failure(model.id, "InvalidResponse", `${model.provider} returned no answer text`)
        return generatedAnswer(text, request)
      }).pipe(Effect.withSpan(`AnswerModel.${model.id}`))

    return { id: model.id, kind: "cloud", method: "generative", answer } satisfies AnswerModelShape
  })
