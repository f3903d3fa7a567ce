import { Config } from "effect"

/**
 * Where `fetch-models` put the model files: `UMO_MODELS_DIR`, default `./models`. One setting for
 * every local model (embedders, reranker, language models), so a deployment moves them together.
 */
export const modelsDirConfig = Config.String("UMO_MODELS_DIR").pipe(Config.withDefault("./models"))
