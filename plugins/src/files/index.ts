/** Text from uploaded files, behind the `FileParser` port. */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export * as FileParsers from "./FileParsers.js"
