/**
 * The in-process search index: each account's vectors, full-text postings, scopes and timelines
 * in memory, kept in step with the store's chain, serving the MemorySearch port.
 */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export * as AccountIndex from "./AccountIndex.js"
export * as IndexedMemorySearch from "./IndexedMemorySearch.js"
export { type IndexStatus, SearchIndex } from "./IndexedMemorySearch.js"
