import { type FileInput, FileParser, FileParserError, type ParsedFile } from "@umo/core"
import { Effect, Layer } from "effect"
import exifr from "exifr"
import { fileTypeFromBuffer } from "file-type"
import { parseBuffer } from "music-metadata"
import { PDFParse } from "pdf-parse"
import { fromCsv, fromHtml, fromJson } from "./DocumentText.js"

const extensionOf = (filename: string) => filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? ""

const noText = (what: string) =>
  new FileParserError({ reason: "NoText", detail: `the ${what} holds no extractable text` })

const clean = (values: ReadonlyArray<unknown>) =>
  values
    .flat()
    .map((v) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === "string" ? v : ""))
    .map((v) => v.replace(/\0/g, "").trim())
    .filter((v, i, all) => v.length > 0 && all.indexOf(v) === i)

// Metadata fields of images that people write text into (EXIF, IPTC, XMP).
const imageTextFields = [
  "ImageDescription",
  "XPTitle",
  "XPComment",
  "XPSubject",
  "XPKeywords",
  "UserComment",
  "Caption",
  "Headline",
  "ObjectName",
  "Keywords",
  "description",
  "title",
  "subject",
  "Artist",
  "Copyright"
]

const imageText = async (bytes: Uint8Array) => {
  const tags = ((await exifr
    .parse(bytes, { iptc: true, xmp: true, userComment: true, mergeOutput: true })
    .catch(() => null)) ?? {}) as Record<string, unknown>
  return clean(
    imageTextFields
      .map((field) => tags[field])
      .filter((v) => v !== undefined)
      .flatMap((v) =>
        typeof v === "object" && v !== null && !(v instanceof Uint8Array) ? Object.values(v) : [v]
      )
  ).join("\n")
}

const audioText = async (bytes: Uint8Array, mime: string) => {
  const { common } = await parseBuffer(bytes, { mimeType: mime }, { skipCovers: true })
  const comments = (common.comment ?? []).map((c) =>
    typeof c === "string" ? c : ((c as { text?: string }).text ?? "")
  )
  const lyrics = (common.lyrics ?? []).map((l) =>
    typeof l === "string" ? l : ((l as { text?: string }).text ?? "")
  )
  const labelled = [
    common.title && `Title: ${common.title}`,
    common.artist && `Artist: ${common.artist}`,
    common.album && `Album: ${common.album}`,
    common.genre?.length ? `Genre: ${common.genre.join(", ")}` : undefined
  ]
  return clean([...labelled, ...comments, ...lyrics]).join("\n")
}

const pdfText = async (bytes: Uint8Array) => {
  const parser = new PDFParse({ data: bytes })
  try {
    return (await parser.getText()).text
  } finally {
    await parser.destroy()
  }
}

const decodeUtf8 = (bytes: Uint8Array) => {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    return text.includes("\0") ? null : text
  } catch {
    return null
  }
}

/**
 * Text from an uploaded file. The bytes decide the format where they carry a signature (PDF,
 * images, audio, archives…); otherwise the file must be UTF-8 text, read by its name or declared
 * type as HTML, JSON, CSV, Markdown or plain text. Images and audio give only the text in their
 * metadata. An unknown binary format is `UnsupportedType`; a known one with no text is `NoText`.
 */
export const parse = (file: FileInput): Effect.Effect<ParsedFile, FileParserError> =>
  Effect.tryPromise({
    try: async (): Promise<ParsedFile> => {
      const sniffed = await fileTypeFromBuffer(file.bytes)
      if (sniffed) {
        if (sniffed.mime === "application/pdf") {
          const text = (await pdfText(file.bytes)).trim()
          if (!text) throw noText("PDF")
          return { text, format: "pdf", metadata: {} }
        }
        if (sniffed.mime.startsWith("image/")) {
          const text = await imageText(file.bytes)
          if (!text) throw noText(`${sniffed.ext} image's metadata`)
          return { text, format: sniffed.mime, metadata: { kind: "image-metadata" } }
        }
        if (
          sniffed.mime.startsWith("audio/") ||
          sniffed.mime === "video/mp4" ||
          sniffed.mime === "application/ogg"
        ) {
          const text = await audioText(file.bytes, sniffed.mime)
          if (!text) throw noText(`${sniffed.ext} file's tags`)
          return { text, format: sniffed.mime, metadata: { kind: "audio-metadata" } }
        }
        if (sniffed.mime !== "application/xml" && !sniffed.mime.startsWith("text/")) {
          throw new FileParserError({
            reason: "UnsupportedType",
            detail: `cannot read text from ${sniffed.mime} files`
          })
        }
      }
      const decoded = decodeUtf8(file.bytes)
      if (decoded === null) {
        throw new FileParserError({
          reason: "UnsupportedType",
          detail: "the file is neither a known format nor UTF-8 text"
        })
      }
      const ext = extensionOf(file.filename)
      const type = file.mediaType?.toLowerCase() ?? ""
      const [format, text] =
        ext === "html" || ext === "htm" || type.includes("html")
          ? ["html", fromHtml(decoded)]
          : ext === "json" || type.includes("json")
            ? ["json", fromJson(decoded)]
            : ext === "csv" || type.includes("csv")
              ? ["csv", fromCsv(decoded)]
              : ext === "md" || ext === "markdown" || type.includes("markdown")
                ? ["markdown", decoded]
                : ["text", decoded]
      if (text.trim().length === 0) throw noText(`${format} file`)
      return { text, format, metadata: {} }
    },
    catch: (cause) =>
      cause instanceof FileParserError
        ? cause
        : new FileParserError({
            reason: "Malformed",
            detail: `the file could not be read: ${cause instanceof Error ? cause.message : String(cause)}`,
            cause
          })
  })

/** The FileParser port filled by the parsers above. */
export const layer = Layer.succeed(FileParser)({ parse })
