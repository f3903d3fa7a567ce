import { UpdateJudge } from "@umo/core"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { localLanguageModels } from "../answer/DefaultAnswerModels.js"
import { modelsDirConfig } from "../support/ModelsDir.js"
import { modelIdleSeconds } from "../support/ModelThread.js"
import * as LanguageModelJudge from "./LanguageModelJudge.js"
import * as LearnedJudge from "./LearnedJudge.js"
import * as LocalModelJudge from "./LocalModelJudge.js"

/**
 * The update judge from the environment:
 * - `UMO_UPDATE_JUDGE`: `rules` (the default: no judge; the fact rules decide, by the slots they
 *   read, in the store) or `learned` (the student trained in training/judge, all-mpnet-base-v2 with
 *   a LoRA adapter, as fetch-models builds it, beside the rules). Not the default while it
 *   supersedes more than it should: pair by pair on the never-read update sets it finds 34.6 % of
 *   the updates (the rules 2.6 %) but takes 2.7 % of the non-updates for updates (the rules 0.0 %;
 *   bench/README.md, "Scopes and updates"). `UMO_INFER_UPDATES=false` infers no update at all;
 * - `UMO_UPDATE_MODEL`: a language model that decides the pairs the learned judge is unsure of —
 *   a local GGUF model's id (`qwen2.5-coder-1.5b-instruct`, as `npm run fetch-models -- --llm=…`
 *   installs it), or a model name with `UMO_UPDATE_MODEL_URL` (an OpenAI-compatible endpoint:
 *   Ollama, llama.cpp's server, vLLM; default OpenAI's) and `UMO_UPDATE_MODEL_KEY`. Never required.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const chosen = yield* Config.Literals(["learned", "rules"], "UMO_UPDATE_JUDGE").pipe(
      Config.withDefault("rules")
    )
    if (chosen === "rules") return Layer.empty
    const idleSeconds = yield* modelIdleSeconds
    const model = yield* Config.String("UMO_UPDATE_MODEL").pipe(Config.option)
    if (Option.isNone(model)) return LearnedJudge.layer({ idleSeconds })
    const baseUrl = yield* Config.String("UMO_UPDATE_MODEL_URL").pipe(Config.option)
    const apiKey = yield* Config.Redacted("UMO_UPDATE_MODEL_KEY").pipe(Config.option)
    const modelsDir = yield* modelsDirConfig
    // A local model's id and no endpoint: the GGUF file fetch-models installs, run in this process.
    const local = Option.isNone(baseUrl) && localLanguageModels.some((m) => m.id === model.value)
    return Layer.effect(
      UpdateJudge,
      Effect.gen(function* () {
        const learned = yield* LearnedJudge.make({ idleSeconds })
        const languageModel = local
          ? yield* LocalModelJudge.make(model.value, modelsDir)
          : yield* LanguageModelJudge.make({
              baseUrl: Option.getOrElse(baseUrl, () => "https://api.openai.com"),
              model: model.value,
              apiKey: Option.getOrUndefined(Option.map(apiKey, Redacted.value))
            })
        return LanguageModelJudge.decidingUnsure(learned, languageModel)
      })
    ).pipe(Layer.provide(FetchHttpClient.layer))
  })
)
