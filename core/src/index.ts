/**
 * @umo/core: the UMO record, the plugin contract, the pipeline, the ports plugins fill, and the
 * hashing that makes memories verifiable.
 */
export * from "./CanonicalJson.js"
export * from "./Draft.js"
export * from "./Hashing.js"
export * from "./KeyRing.js"
export * as Pipeline from "./Pipeline.js"
export * from "./PipelineError.js"
export * from "./Plugin.js"
export * from "./Provenance.js"
export * from "./ports/AccountStore.js"
export * from "./ports/AnswerModel.js"
export * from "./ports/Embedder.js"
export * from "./ports/FileParser.js"
export * from "./ports/Ledger.js"
export * from "./ports/MemoryStore.js"
export * from "./Quality.js"
export * from "./Stage.js"
export * from "./StorableText.js"
export * from "./Umo.js"
export * from "./UmoId.js"
