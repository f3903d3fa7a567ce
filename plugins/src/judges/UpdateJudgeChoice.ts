import { UpdateJudge } from "@umo/core"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import * as LanguageModelJudge from "./LanguageModelJudge.js"
import * as LearnedJudge from "./LearnedJudge.js"
import * as RulesJudge from "./RulesJudge.js"

/**
 * The update judge from the environment:
 * - `UMO_UPDATE_JUDGE`: `learned` (the default: the model trained in training/judge, shipped with
 *   this package), `rules` (the fact rules alone) or `off` (no update is inferred);
 * - `UMO_UPDATE_MODEL` (a model name) with `UMO_UPDATE_MODEL_URL` (an OpenAI-compatible endpoint:
 *   Ollama, llama.cpp's server, vLLM, OpenAI) and `UMO_UPDATE_MODEL_KEY`: that model decides the
 *   pairs the learned judge is unsure of. Never required.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const chosen = yield* Config.Literals(["learned", "rules", "off"], "UMO_UPDATE_JUDGE").pipe(
      Config.withDefault("learned")
    )
    if (chosen === "off") return Layer.empty
    if (chosen === "rules") return RulesJudge.layer
    const model = yield* Config.String("UMO_UPDATE_MODEL").pipe(Config.option)
    if (Option.isNone(model)) return LearnedJudge.layer()
    const baseUrl = yield* Config.String("UMO_UPDATE_MODEL_URL").pipe(
      Config.withDefault("https://api.openai.com")
    )
    const apiKey = yield* Config.Redacted("UMO_UPDATE_MODEL_KEY").pipe(Config.option)
    return Layer.effect(
      UpdateJudge,
      Effect.gen(function* () {
        const learned = yield* LearnedJudge.make()
        const languageModel = yield* LanguageModelJudge.make({
          baseUrl,
          model: model.value,
          apiKey: Option.getOrUndefined(Option.map(apiKey, Redacted.value))
        })
        return LanguageModelJudge.decidingUnsure(learned, languageModel)
      })
    ).pipe(Layer.provide(FetchHttpClient.layer))
  })
)
