import { type AnswerModelShape, AnswerModels, makeAnswerModels } from "@umo/core"
import { Config, Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import * as CloudAnswerModel from "./CloudAnswerModel.js"
import { extractive } from "./ExtractiveAnswerModel.js"

/**
 * An answer model, or how to make one with an HTTP client (a cloud model): what a configuration
 * lists, so that it need not build the client itself.
 */
export type AnswerModelSource =
  | AnswerModelShape
  | Effect.Effect<AnswerModelShape, never, HttpClient.HttpClient>

/** The default models: the extractive one (local, the default) and the cloud models, each with the caller's key. */
export const sources = (endpoints: CloudAnswerModel.CloudEndpoints): ReadonlyArray<AnswerModelSource> => [
  extractive,
  ...CloudAnswerModel.cloudModels.map((model) => CloudAnswerModel.make(model, endpoints))
]

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

/** The default models, with the provider endpoints from the environment. */
export const layerConfig = Layer.unwrap(Effect.map(endpointsConfig, (endpoints) => layer(sources(endpoints))))
