import { existsSync } from "node:fs"
import { join } from "node:path"
import { Reranker, RerankerError, type RerankerShape } from "@umo/core"
import { Config, Effect, Layer, Option } from "effect"
import { fetchModelsCommand, modelsDirConfig } from "../support/ModelsDir.js"
import { modelIdleSeconds, modelThread } from "../support/ModelThread.js"
import type { CrossEncoderSetup, ScoreTask } from "./CrossEncoderWorker.js"

/** The cross-encoder fetch-models installs: ms-marco-MiniLM-L-12-v2, int8 (34 MB, Apache-2.0). */
export const defaultModel = "cross-encoder/ms-marco-MiniLM-L-12-v2"

export interface CrossEncoderOptions {
  readonly modelsDir: string
  readonly model?: string
  /** Tokens of query and passage together (default 256). */
  readonly maxTokens?: number
  /** Seconds the model stays loaded after its last call; 0, for good (default 300). */
  readonly idleSeconds?: number
}

/** Whether the model's files are in `modelsDir`. */
export const installed = (modelsDir: string, model = defaultModel) =>
  existsSync(join(modelsDir, model, "onnx", "model_int8.onnx")) &&
  existsSync(join(modelsDir, model, "config.json"))

/**
 * A cross-encoder run by transformers.js on a thread of its own (CrossEncoderWorker.ts), which
 * loads the model on the first call (about 0.5 s); the thread is closed with the layer's scope.
 */
export const make = (options: CrossEncoderOptions) =>
  Effect.gen(function* () {
    const model = options.model ?? defaultModel
    if (!installed(options.modelsDir, model)) {
      return yield* new RerankerError({
        model,
        detail: `${join(options.modelsDir, model)} not found; run \`${fetchModelsCommand()}\``
      })
    }
    const setup: CrossEncoderSetup = {
      modelsDir: options.modelsDir,
      model,
      maxTokens: options.maxTokens ?? 256
    }
    const { run } = yield* modelThread<ScoreTask, Array<number>>(
      import.meta.url,
      "CrossEncoderWorker",
      setup,
      options.idleSeconds
    )
    const score: RerankerShape["score"] = (query, passages) =>
      passages.length === 0
        ? Effect.succeed([])
        : Effect.tryPromise({
            try: (signal) => run({ query, passages }, signal),
            catch: (cause) =>
              new RerankerError({ model, detail: `reranking failed: ${String(cause)}`, cause })
          }).pipe(Effect.withSpan("Reranker.score", { attributes: { passages: passages.length } }))
    return { model, score } satisfies RerankerShape
  })

export const layer = (options: CrossEncoderOptions) => Layer.effect(Reranker, make(options))

/**
 * The reranker from the environment: `UMO_RERANKER` is `cross-encoder` (the default when its files
 * are installed in `UMO_MODELS_DIR`) or `off`. Without one, searches rank by their first stage.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const modelsDir = yield* modelsDirConfig
    const chosen = yield* Config.Literals(["cross-encoder", "off"], "UMO_RERANKER").pipe(Config.option)
    const wanted = Option.getOrElse(chosen, () => (installed(modelsDir) ? "cross-encoder" : "off"))
    if (wanted === "off") {
      if (Option.isNone(chosen)) {
        yield* Effect.logWarning(
          `no reranker: ${join(modelsDir, defaultModel)} is not installed (run \`${fetchModelsCommand()}\`); answers rank by the first stage`
        )
      }
      return Layer.empty
    }
    return layer({ modelsDir, idleSeconds: yield* modelIdleSeconds })
  })
)
