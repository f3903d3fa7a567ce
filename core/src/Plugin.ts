/**
 * The plugin contract. This JSDoc is its single source of truth; `docs/plugins.md` explains it
 * with a worked example.
 *
 * A **stage plugin** is a plain, named, versioned value:
 *
 * ```ts
 * { name: "hashtags", version: "1.0.0", stage: "extract", run: (draft) => Effect<Draft, PluginFailure, R> }
 * ```
 *
 * 1. **Construction.** A plugin is made by a factory that takes plain-JSON options, checks them at
 *    once (throwing a `PluginOptionsError` for bad options) and returns the value. Nothing heavy
 *    happens there: models and connections are loaded by the Layer of a port (e.g. `Embedder`),
 *    which `run` asks for through Effect's context (`R`).
 * 2. **Stage.** `stage` is one of the seven stages: capture, normalize, extract, enrich, parse,
 *    embed, validate. `Pipeline.make` orders plugins by stage; plugins of the same stage keep the
 *    order they were given in.
 * 3. **run.** `run` receives the draft the previous plugin returned and returns the next draft.
 *    Drafts are immutable: return a new object (`{ ...draft, entities }`), never mutate.
 *    `run` must be deterministic for a given plugin version: the same draft gives the same
 *    result, with no clock, randomness or network in what it extracts. That is what lets a
 *    stored memory's semantic hash be reproduced by re-running its recorded pipeline.
 * 4. **Own fields.** A plugin that adds something the draft has no field for puts it under
 *    `draft.extensions[name]`, as plain JSON. It is stored with the UMO and covered by the
 *    semantic hash.
 * 5. **Findings.** Non-fatal findings go on the draft with `addMessage(draft, "info" | "warning",
 *    text)`. `addMessage(draft, "fatal", text)` rejects the input: the pipeline stops and fails
 *    with a `PipelineError` of reason `InvalidInput`.
 * 6. **Errors.** `run` fails with `PluginFailure` (reason `InvalidInput` when the input itself is
 *    unusable, `Failed` when the plugin could not do its work). Plugins never name themselves in
 *    errors: the pipeline wraps every failure, and every defect thrown inside `run`, into a
 *    `PipelineError` carrying `plugin` and `stage`.
 * 7. **Version.** Bump `version` whenever the output for some input changes; it is recorded on
 *    every UMO.
 *
 * @module
 */
import { type Effect, Schema } from "effect"
import type { Draft } from "./Draft.js"
import { type Stage, stages } from "./Stage.js"

/** Why a plugin could not produce the next draft. */
export class PluginFailure extends Schema.Error<PluginFailure>("PluginFailure")({
  reason: Schema.Literals(["InvalidInput", "Failed"]),
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/** Thrown by a plugin factory when its options are wrong; raised once, at construction. */
export class PluginOptionsError extends Schema.Error<PluginOptionsError>("PluginOptionsError")({
  plugin: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `plugin "${this.plugin}": ${this.detail}`
  }
}

export interface Plugin<R = never> {
  readonly name: string
  readonly version: string
  readonly stage: Stage
  readonly run: (draft: Draft) => Effect.Effect<Draft, PluginFailure, R>
}

/** The services a list of plugins needs. */
export type PluginServices<P> = P extends Plugin<infer R> ? R : never

const namePattern = /^[a-z0-9][a-z0-9._/-]*$/
const versionPattern = /^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/

/**
 * Checks a plugin value and returns it. Use it in plugin factories so a malformed plugin fails at
 * construction rather than on the first capture.
 */
export const makePlugin = <R>(plugin: Plugin<R>): Plugin<R> => {
  if (!namePattern.test(plugin.name)) {
    throw new PluginOptionsError({
      plugin: plugin.name,
      detail: "a plugin name is lowercase letters, digits, '.', '_', '-' or '/'"
    })
  }
  if (!versionPattern.test(plugin.version)) {
    throw new PluginOptionsError({
      plugin: plugin.name,
      detail: `version "${plugin.version}" is not semver`
    })
  }
  if (!stages.includes(plugin.stage)) {
    throw new PluginOptionsError({ plugin: plugin.name, detail: `unknown stage "${plugin.stage}"` })
  }
  return plugin
}

/**
 * Decodes plugin options with a Schema, throwing a `PluginOptionsError` that names the plugin
 * when they do not fit. Call it in a factory, before building the plugin.
 */
export const decodeOptions = <S extends Schema.Top & { readonly DecodingServices: never }>(
  plugin: string,
  schema: S,
  options: unknown
): S["Type"] => {
  try {
    return Schema.decodeUnknownSync(schema as never)(options ?? {}) as S["Type"]
  } catch (error) {
    throw new PluginOptionsError({ plugin, detail: `invalid options: ${String(error)}` })
  }
}
