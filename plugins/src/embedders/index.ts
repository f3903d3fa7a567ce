/** Embedders behind the `Embedder` port, and the embed-stage plugin that uses them. */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export { chunkSpans, embed } from "./Embed.js"
export * as EmbedderChoice from "./EmbedderChoice.js"
export { makeSwitchingEmbedder, type SwitchingEmbedder } from "./SwitchingEmbedder.js"
export * as TransformersEmbedder from "./TransformersEmbedder.js"
export * as UseLiteEmbedder from "./UseLiteEmbedder.js"
