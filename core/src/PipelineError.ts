import { Schema } from "effect"
import { Stage } from "./Stage.js"

/**
 * Any failure of a pipeline run. It always names the plugin and the stage it came from, so a
 * caller (and the server's error mapping) can tell bad input from a broken plugin.
 * - `InvalidInput`: the content cannot be captured (empty, too long, rejected by a plugin).
 * - `Failed`: a plugin could not do its work (a model failed, a defect was thrown).
 */
export class PipelineError extends Schema.Error<PipelineError>("PipelineError")({
  plugin: Schema.String,
  stage: Stage,
  reason: Schema.Literals(["InvalidInput", "Failed"]),
  /** The plugin's own words, without the plugin/stage prefix. */
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return `${this.stage} plugin "${this.plugin}": ${this.detail}`
  }
}
