/**
 * A deployment's own parts: the plugins, embedder, answer models and file parsers the service
 * runs with. The reference server loads them from `umo.config.ts` in its working directory (or the
 * file `UMO_CONFIG` names), which default-exports `defineConfig({ … })`:
 *
 * ```ts
 * import { defineConfig } from "@umo/memory"
 * import { defaultPlugins } from "@umo/plugins"
 * import { hashtags } from "./hashtags.js"
 *
 * export default defineConfig({ plugins: [...defaultPlugins(), hashtags()] })
 * ```
 * @module
 */
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import {
  type Embedder,
  FactFinder,
  type FactFinderShape,
  FileParser,
  type FileParserShape,
  firstSupporting,
  type Plugin,
  UpdateJudge,
  type UpdateJudgeShape
} from "@umo/core"
import {
  CrossEncoderReranker,
  DefaultAnswerModels,
  FactFinderLive,
  FileParsers,
  UpdateJudgeChoice
} from "@umo/plugins"
import { Config, Effect, Layer, Option, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import * as MemoryLive from "./MemoryLive.js"

export interface UmoConfig {
  /** The capture pipeline; default `defaultPlugins()` (see `MemoryOptions`). */
  readonly plugins?: ReadonlyArray<Plugin<Embedder>> | undefined
  /**
   * The Embedder layer; default the one `UMO_EMBEDDER` picks. A store keeps the vectors of one
   * embedder: another one is refused at start (see `EmbedderPin`), unless `reembed` is on.
   */
  readonly embedder?: Layer.Layer<Embedder, unknown> | undefined
  /**
   * A store pinned to another embedder than `embedder` is re-embedded with it, in the background,
   * while searches answer with the one it was pinned to; then it switches, in one step, and its
   * chain records a signed `reembed` entry for each memory (default `UMO_REEMBED`, off).
   */
  readonly reembed?: boolean | undefined
  /**
   * The embedder a store was pinned to, by the id it recorded: what a re-embedding answers with
   * until its switch. Default: the embedders UMO ships (`EmbedderChoice.forPinnedId`), when
   * `embedder` is the default too.
   */
  readonly pinnedEmbedder?: ((id: string) => Layer.Layer<Embedder, unknown>) | undefined
  /** The answer models `answer` offers; default the extractive one and the cloud ones. */
  readonly answerModels?: ReadonlyArray<DefaultAnswerModels.AnswerModelSource> | undefined
  /** The model `answer` uses when none is named; default the first local model. */
  readonly defaultAnswerModel?: string | undefined
  /** File parsers tried, in order, before the default ones (the first that reads a file answers). */
  readonly fileParsers?: ReadonlyArray<FileParserShape> | undefined
  /**
   * What decides that a newer memory makes an earlier one out of date; default the one
   * `UMO_UPDATE_JUDGE` picks (none, the fact rules alone; see UpdateJudgeChoice.layerConfig).
   */
  readonly updateJudge?: UpdateJudgeShape | undefined
  /**
   * What reads the facts memories state and questions ask (for supersessions and what is current);
   * default the English rules with the slot sense by the embedder (FactFinderLive.layerConfig).
   */
  readonly factFinder?: FactFinderShape | undefined
}

/** The configuration a `umo.config.ts` default-exports; its lists are checked to be lists. */
export const defineConfig = (config: UmoConfig): UmoConfig => {
  for (const key of ["plugins", "answerModels", "fileParsers"] as const) {
    if (config[key] !== undefined && !Array.isArray(config[key]))
      throw new TypeError(`defineConfig: ${key} must be a list`)
  }
  return config
}

/** The configuration file could not be loaded, or does not hold a configuration. */
export class ConfigFileError extends Schema.Error<ConfigFileError>("ConfigFileError")({
  file: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.file}: ${this.detail}`
  }
}

const configKeys = new Set([
  "plugins",
  "embedder",
  "reembed",
  "pinnedEmbedder",
  "answerModels",
  "defaultAnswerModel",
  "fileParsers",
  "updateJudge",
  "factFinder"
])

/**
 * The configuration in `file` (its default export). A file that fails to load — a plugin factory
 * refusing its options, say — is an error saying so, in the plugin's own words.
 */
export const loadConfigFile = (file: string) =>
  Effect.gen(function* () {
    const loaded = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(resolve(file)).href) as Promise<{ readonly default?: unknown }>,
      catch: (error) =>
        new ConfigFileError({ file, detail: error instanceof Error ? error.message : String(error) })
    })
    const config = loaded.default
    if (typeof config !== "object" || config === null || Array.isArray(config))
      return yield* new ConfigFileError({ file, detail: "its default export is not a defineConfig({ … })" })
    const unknown = Object.keys(config).filter((key) => !configKeys.has(key))
    if (unknown.length > 0)
      return yield* new ConfigFileError({
        file,
        detail: `unknown setting ${unknown.join(", ")} (known: ${[...configKeys].join(", ")})`
      })
    return config as UmoConfig
  })

/**
 * The configuration of this deployment: the file `UMO_CONFIG` names, else `umo.config.ts` in the
 * working directory when there is one, else none (the defaults).
 */
export const configFromEnvironment = Effect.gen(function* () {
  const named = yield* Config.option(Config.String("UMO_CONFIG"))
  const file = Option.getOrElse(named, () => "umo.config.ts")
  if (Option.isNone(named) && !existsSync(file)) return {} as UmoConfig
  if (!existsSync(file)) return yield* new ConfigFileError({ file, detail: "no such file (UMO_CONFIG)" })
  return yield* loadConfigFile(file)
})

/** The FileParser port: the configured parsers first, then the default ones. */
const fileParserLayer = (config: UmoConfig) =>
  Layer.succeed(FileParser)(firstSupporting([...(config.fileParsers ?? []), { parse: FileParsers.parse }]))

/** The AnswerModels port: the configured models, or the defaults (cloud endpoints from the environment). */
const answerModelsLayer = (config: UmoConfig) =>
  (config.answerModels === undefined
    ? DefaultAnswerModels.layerConfig
    : DefaultAnswerModels.layer(config.answerModels, config.defaultAnswerModel)
  ).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * The Memory service with a configuration's plugins, file parsers and answer models, the reranker
 * `UMO_RERANKER` picks (see CrossEncoderReranker.layerConfig) and the update judge `UMO_UPDATE_JUDGE`
 * picks (see UpdateJudgeChoice.layerConfig); it needs the
 * storage ports and the Embedder (the configured one, or the environment's: see `embedderOf`).
 * `warmUp`: see `MemoryOptions`.
 */
export const memoryLayer = (config: UmoConfig = {}, { warmUp = false }: { readonly warmUp?: boolean } = {}) =>
  MemoryLive.layer({ plugins: config.plugins, warmUp }).pipe(
    Layer.provide(fileParserLayer(config)),
    Layer.provide(answerModelsLayer(config)),
    Layer.provide(CrossEncoderReranker.layerConfig),
    Layer.provide(
      config.factFinder === undefined
        ? FactFinderLive.layerConfig
        : Layer.succeed(FactFinder, config.factFinder)
    ),
    Layer.provide(
      config.updateJudge === undefined
        ? UpdateJudgeChoice.layerConfig
        : Layer.succeed(UpdateJudge, config.updateJudge)
    )
  )
