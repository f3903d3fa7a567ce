import { type JudgedPair, UpdateJudgeError, type UpdateJudgeShape } from "@umo/core"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

/** An OpenAI-compatible chat-completions endpoint: OpenAI, Ollama, llama.cpp's server, vLLM. */
export interface LanguageModelEndpoint {
  /** Without `/v1`: `http://127.0.0.1:11434` (Ollama), `https://api.openai.com`. */
  readonly baseUrl: string
  readonly model: string
  readonly apiKey?: string | undefined
  /** Per pair (default 20 s). */
  readonly timeoutMs?: number
}

export const system =
  "You keep one person's notes up to date. You are shown an EARLIER note and a NEWER note, both written " +
  "by the same person. Answer yes if the newer note makes the earlier note out of date: the fact the " +
  "earlier note states about the person is no longer true (they moved, changed job, a pet died, a plan " +
  "was moved or called off, a count or a preference changed), even when the newer note only implies it. " +
  "Answer no if the newer note adds to it, repeats it, is about someone else, is a wish, question, plan " +
  "or negation, uses the same words in another sense, or is about something else. Answer yes or no."

/** The chat-completions body asking about one pair: one token, with the likeliest tokens' logprobs. */
export const requestBody = (model: string, pair: JudgedPair) => ({
  model,
  temperature: 0,
  max_tokens: 1,
  logprobs: true,
  top_logprobs: 10,
  messages: [
    { role: "system", content: system },
    { role: "user", content: `EARLIER: ${pair.earlier}\nNEWER: ${pair.newer}\nOut of date?` }
  ]
})

interface Completion {
  readonly choices?: ReadonlyArray<{
    readonly message?: { readonly content?: string | null }
    readonly logprobs?: {
      readonly content?: ReadonlyArray<{
        readonly token: string
        readonly logprob: number
        readonly top_logprobs?: ReadonlyArray<{ readonly token: string; readonly logprob: number }>
      }> | null
    } | null
  }>
}

const word = (token: string) => token.trim().toLowerCase()

/**
 * The probability of "yes" from a completion: from the first token's top logprobs where the
 * endpoint gives them (the mass on yes against the mass on no), else 1 or 0 from the word it
 * answered; undefined when it answered neither.
 */
export const probabilityOfYes = (completion: Completion): number | undefined => {
  const choice = completion.choices?.[0]
  const first = choice?.logprobs?.content?.[0]
  const tops = first?.top_logprobs ?? (first === undefined ? [] : [first])
  const mass = (w: string) =>
    tops.filter((t) => word(t.token) === w).reduce((sum, t) => sum + Math.exp(t.logprob), 0)
  const yes = mass("yes")
  const no = mass("no")
  if (yes + no > 0) return yes / (yes + no)
  const answered = word(choice?.message?.content ?? "")
  return answered.startsWith("yes") ? 1 : answered.startsWith("no") ? 0 : undefined
}

/**
 * A language model as a judge, through the chat-completions wire format: each pair one request,
 * its probability of "yes" the score. Never required: a deployment names it with
 * `UMO_UPDATE_MODEL`, and `decidingUnsure` asks it only what the learned judge is unsure of.
 */
export const make = (endpoint: LanguageModelEndpoint) =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.retryTransient({ times: 1 }))
    const name = `language-model:${endpoint.model}`
    const timeoutMs = endpoint.timeoutMs ?? 20_000
    const url = `${endpoint.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/chat/completions`
    const fail = (detail: string, cause?: unknown) => new UpdateJudgeError({ judge: name, detail, cause })
    const one = (pair: JudgedPair) =>
      Effect.gen(function* () {
        const request = HttpClientRequest.post(url).pipe(
          endpoint.apiKey ? HttpClientRequest.bearerToken(endpoint.apiKey) : (r) => r,
          HttpClientRequest.bodyJsonUnsafe(requestBody(endpoint.model, pair))
        )
        const response = yield* http.execute(request)
        const text = yield* response.text
        if (response.status >= 300) return yield* fail(`the endpoint answered ${response.status}`)
        const completion = yield* Effect.try({
          try: () => JSON.parse(text) as Completion,
          catch: (cause) => fail("the endpoint answered with no JSON", cause)
        })
        const p = probabilityOfYes(completion)
        if (p === undefined) return yield* fail("the model answered neither yes nor no")
        return p
      }).pipe(
        Effect.catchTag("HttpClientError", (cause) =>
          Effect.fail(fail(`could not reach ${url}: ${cause.reason._tag}`, cause))
        ),
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () => Effect.fail(fail(`no answer within ${timeoutMs / 1000} s`))
        })
      )
    const score: UpdateJudgeShape["score"] = (pairs) =>
      Effect.forEach(pairs, one, { concurrency: 4 }).pipe(Effect.withSpan("UpdateJudge.languageModel"))
    return { name, threshold: 0.5, score } satisfies UpdateJudgeShape
  })

/**
 * How near the learned judge's threshold a score is unsure, in log-odds: within 2 (odds 7.4 times
 * higher or lower than the threshold's) a language model decides. For a threshold of 0.5 that is
 * 0.12–0.88; for the student's 0.916, 0.60–0.988 (its scores crowd near 1, so the band follows its
 * threshold rather than sitting around one half).
 */
export const unsureLogOdds = 2

const logOdds = (p: number) => {
  const q = Math.min(1 - 1e-9, Math.max(1e-9, p))
  return Math.log(q / (1 - q))
}

/** Whether a learned score is near enough its threshold for a language model to decide it. */
export const isUnsure = (score: number, threshold: number): boolean =>
  Math.abs(logOdds(score) - logOdds(threshold)) <= unsureLogOdds

/**
 * The learned judge, with a language model deciding the pairs it is unsure of (`isUnsure`); the
 * threshold stays the learned judge's. When the model fails, the learned scores stand.
 */
export const decidingUnsure = (learned: UpdateJudgeShape, model: UpdateJudgeShape): UpdateJudgeShape => ({
  name: `${learned.name}+${model.name}`,
  threshold: learned.threshold,
  score: (pairs) =>
    Effect.gen(function* () {
      const scores = [...(yield* learned.score(pairs))]
      const unsure = scores.flatMap((s, i) => (isUnsure(s, learned.threshold) ? [i] : []))
      if (unsure.length === 0) return scores
      const decided = yield* model.score(unsure.map((i) => pairs[i]!)).pipe(
        Effect.map((s) => s as ReadonlyArray<number> | undefined),
        Effect.catch((e) =>
          Effect.as(Effect.logWarning(`${e.message}; the learned judge's scores stand`), undefined)
        )
      )
      if (decided === undefined) return scores
      // On the learned judge's scale: the model's yes lands above its threshold, its no below.
      for (const [k, i] of unsure.entries())
        scores[i] =
          decided[k]! >= model.threshold
            ? Math.max(scores[i]!, learned.threshold)
            : Math.min(scores[i]!, learned.threshold - 1e-6)
      return scores
    })
})
