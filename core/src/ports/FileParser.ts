import { Context, Effect, Schema } from "effect"

/** Why a file gave no text: an unknown binary format, or nothing extractable in a known one. */
export class FileParserError extends Schema.Error<FileParserError>("FileParserError")({
  reason: Schema.Literals(["UnsupportedType", "NoText", "Malformed"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

export interface FileInput {
  readonly filename: string
  /** The media type the caller declared, if any; parsers also sniff the bytes. */
  readonly mediaType?: string | undefined
  readonly bytes: Uint8Array
}

export interface ParsedFile {
  readonly text: string
  /** The detected format, e.g. `pdf`, `markdown`, `image/jpeg`. */
  readonly format: string
  readonly metadata: Readonly<Record<string, string>>
}

/** Turns an uploaded file into text. The bytes are never stored. */
export interface FileParserShape {
  readonly parse: (file: FileInput) => Effect.Effect<ParsedFile, FileParserError>
}

export class FileParser extends Context.Service<FileParser, FileParserShape>()("@umo/core/FileParser") {}

/**
 * Parsers tried in order: the first that does not refuse the file as `UnsupportedType` answers
 * (with its text, or its own failure); when every one refuses it, the last refusal stands. How a
 * configuration puts its own parsers (a DOCX reader, say) before the default ones.
 */
export const firstSupporting = (parsers: ReadonlyArray<FileParserShape>): FileParserShape => ({
  parse: (file) =>
    parsers.reduce<Effect.Effect<ParsedFile, FileParserError>>(
      (earlier, parser) =>
        Effect.catch(earlier, (error) =>
          error.reason === "UnsupportedType" ? parser.parse(file) : Effect.fail(error)
        ),
      Effect.fail(new FileParserError({ reason: "UnsupportedType", detail: "no file parser is configured" }))
    )
})
