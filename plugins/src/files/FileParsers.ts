import { type FileInput, FileParser, FileParserError, type ParsedFile, storableText } from "@umo/core"
import { Effect, Layer } from "effect"

// The format libraries load on the first file that needs them, not at start: together they
// cost about half a second of a server's start-up (pdf.js, music-metadata, exifr, html-to-text).

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
  const { default: exifr } = await import("exifr")
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

/** What an image is, when it carries no text of its own: its format and size in pixels. */
const describeImage = async (bytes: Uint8Array, ext: string, filename: string) => {
  const { imageSize } = await import("image-size")
  let size = ""
  try {
    const { width, height } = imageSize(bytes)
    if (width && height) size = `, ${width}×${height} pixels`
  } catch {}
  return `${ext.toUpperCase()} image ${filename}${size}, with no text of its own`
}

const minutesAndSeconds = (seconds: number) =>
  `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, "0")}`

const audioText = async (bytes: Uint8Array, mime: string, ext: string, filename: string) => {
  const { parseBuffer } = await import("music-metadata")
  const { common, format } = await parseBuffer(bytes, { mimeType: mime }, { skipCovers: true })
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
  const text = clean([...labelled, ...comments, ...lyrics]).join("\n")
  if (text) return text
  const length = format.duration ? `, ${minutesAndSeconds(format.duration)} long` : ""
  return `${ext.toUpperCase()} audio ${filename}${length}, with no tags of its own`
}

/** A PDF's text; for one without a text layer (a scan, say), its title, author and page count. */
const pdfText = async (bytes: Uint8Array, filename: string) => {
  const { PDFParse } = await import("pdf-parse")
  const parser = new PDFParse({ data: bytes })
  try {
    // Pages joined by a blank line (pdf-parse's default joiner, "-- 1 of 2 --", is not the text's).
    const text = (await parser.getText({ pageJoiner: "" })).pages
      .map((page) => page.text.trim())
      .filter((page) => page.length > 0)
      .join("\n\n")
    if (text) return text
    const { total, info } = await parser.getInfo()
    const field = (name: string) => (typeof info?.[name] === "string" ? clean([info[name]])[0] : undefined)
    return [
      `PDF document ${filename}, ${total} page${total === 1 ? "" : "s"}, with no text layer`,
      field("Title") && `Title: ${field("Title")}`,
      field("Author") && `Author: ${field("Author")}`,
      field("Subject") && `Subject: ${field("Subject")}`
    ]
      .filter(Boolean)
      .join("\n")
  } finally {
    await parser.destroy()
  }
}

/** The file's text, if it is UTF-8, made storable (U+0000 dropped: see `storableText`). */
const decodeUtf8 = (bytes: Uint8Array) => {
  try {
    return storableText(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch {
    return null
  }
}

/**
 * Text from an uploaded file. The bytes decide the format where they carry a signature (PDF,
 * images, audio, archives…); otherwise the file must be UTF-8 text, read by its name or declared
 * type as HTML, JSON, CSV, Markdown or plain text. Images and audio give the text in their
 * metadata, or — when they carry none — what they are (format, name, size or length); a PDF
 * without a text layer likewise gives its page count and title. An unknown binary format is
 * `UnsupportedType`; a text file with nothing visible in it is `NoText`.
 */
export const parse = (file: FileInput): Effect.Effect<ParsedFile, FileParserError> =>
  Effect.tryPromise({
    try: async (): Promise<ParsedFile> => {
      const { fileTypeFromBuffer } = await import("file-type")
      const sniffed = await fileTypeFromBuffer(file.bytes)
      if (sniffed) {
        const name = file.filename.trim() || "(unnamed)"
        if (sniffed.mime === "application/pdf") {
          return { text: await pdfText(file.bytes, name), format: "pdf", metadata: {} }
        }
        if (sniffed.mime.startsWith("image/")) {
          const text = (await imageText(file.bytes)) || (await describeImage(file.bytes, sniffed.ext, name))
          return { text, format: sniffed.mime, metadata: { kind: "image-metadata" } }
        }
        if (
          sniffed.mime.startsWith("audio/") ||
          sniffed.mime === "video/mp4" ||
          sniffed.mime === "application/ogg"
        ) {
          const text = await audioText(file.bytes, sniffed.mime, sniffed.ext, name)
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
      const { fromCsv, fromHtml, fromJson } = await import("./DocumentText.js")
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

/** The FileParser port filled by the parsers above (the default ones). */
export const layer = Layer.succeed(FileParser)({ parse })
