import { Config, Option } from "effect"
import { modelsDir } from "./ModelsLocation.js"

export { checkoutRoot, fetchModelsCommand, userModelsDir } from "./ModelsLocation.js"

/**
 * Where the model files are: `UMO_MODELS_DIR`, else the checkout's `./models` or the per-user cache
 * (`ModelsLocation.modelsDir`). One setting for every local model (embedders, reranker, language
 * models), so a deployment moves them together.
 */
export const modelsDirConfig = Config.String("UMO_MODELS_DIR").pipe(
  Config.option,
  Config.map((configured) =>
    Option.getOrElse(
      Option.filter(configured, (dir) => dir !== ""),
      () => modelsDir({ ...process.env, UMO_MODELS_DIR: undefined })
    )
  )
)
