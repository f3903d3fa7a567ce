/** Embedders behind the `Embedder` port, and the embed-stage plugin that uses them. */
export { chunkSpans, embed } from "./Embed.js"
export * as EmbedderChoice from "./EmbedderChoice.js"
export * as TransformersEmbedder from "./TransformersEmbedder.js"
export * as UseLiteEmbedder from "./UseLiteEmbedder.js"
