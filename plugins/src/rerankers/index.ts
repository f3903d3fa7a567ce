/** Rerankers behind the `Reranker` port: the cross-encoder fetch-models installs. */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export * as CrossEncoderReranker from "./CrossEncoderReranker.js"
