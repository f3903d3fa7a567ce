/** Text from uploaded files, behind the `FileParser` port. */
export * as FileParsers from "./FileParsers.js"
