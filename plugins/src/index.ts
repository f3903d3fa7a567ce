/**
 * @umo/plugins: the default plugin set. `defaultPlugins()` is the pipeline the service runs;
 * the areas are also exported on their own (`@umo/plugins/nlp`, `@umo/plugins/embedders`).
 */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "./support/NodeVersion.js"
import type { Embedder, Plugin } from "@umo/core"
import { embed } from "./embedders/index.js"
import { capture, enrich, entities, normalize, svoTriples, validate } from "./nlp/index.js"

export * from "./answer/index.js"
export * from "./embedders/index.js"
export * from "./files/index.js"
export * from "./judges/index.js"
export * from "./nlp/index.js"
export * from "./rerankers/index.js"
export * from "./search/index.js"
export * from "./storage/index.js"

export interface DefaultPluginOptions {
  /** Longest content accepted by the capture stage (default 1,000,000 characters). */
  readonly maxLength?: number
}

/** The default pipeline's plugins, one or more per stage, in stage order. */
export const defaultPlugins = (options: DefaultPluginOptions = {}): ReadonlyArray<Plugin<Embedder>> => [
  capture(options.maxLength === undefined ? {} : { maxLength: options.maxLength }),
  normalize(),
  entities(),
  enrich(),
  svoTriples(),
  embed(),
  validate()
]
