/** Rerankers behind the `Reranker` port: the cross-encoder fetch-models installs. */
export * as CrossEncoderReranker from "./CrossEncoderReranker.js"
