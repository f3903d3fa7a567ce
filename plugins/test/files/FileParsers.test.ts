import { it } from "@effect/vitest"
import { FileParsers } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { jpegWithDescription, mp3WithTags, pdfWithText, zipHeader } from "./samples.js"

const text = (s: string) => new TextEncoder().encode(s)
const parse = (filename: string, bytes: Uint8Array, mediaType?: string) =>
  FileParsers.parse({ filename, bytes, mediaType })

describe("FileParsers", () => {
  it.effect("reads plain text, Markdown, HTML, JSON and CSV", () =>
    Effect.gen(function* () {
      expect((yield* parse("notes.txt", text("Ada wrote code."))).text).toBe("Ada wrote code.")
      expect(yield* parse("doc.md", text("# Title\n\nSome *text*."))).toMatchObject({ format: "markdown" })
      const html = yield* parse(
        "page.html",
        text("<html><body><h1>Trip</h1><p>We visited <b>Rome</b>.</p><script>x()</script></body></html>")
      )
      expect(html.format).toBe("html")
      expect(html.text).toContain("We visited Rome.")
      expect(html.text).not.toContain("x()")
      const json = yield* parse(
        "data.json",
        text('{"person": {"name": "Ada", "born": 1815}, "tags": ["math"]}')
      )
      expect(json.text).toBe("person.name: Ada\nperson.born: 1815\ntags[0]: math")
      const csv = yield* parse("people.csv", text("name,city\nAda,London\nMarie,Paris\n"))
      expect(csv.text).toBe("name: Ada; city: London\nname: Marie; city: Paris")
    })
  )

  it.effect("reads the text of a PDF", () =>
    Effect.gen(function* () {
      const pdf = yield* parse("report.pdf", pdfWithText("Quarterly revenue grew in Berlin."))
      expect(pdf.format).toBe("pdf")
      expect(pdf.text).toContain("Quarterly revenue grew in Berlin.")
    })
  )

  it.effect("takes only the embedded text of images and audio", () =>
    Effect.gen(function* () {
      const image = yield* parse("photo.jpg", jpegWithDescription("Sunset over the lake in Geneva"))
      expect(image).toMatchObject({ format: "image/jpeg", text: "Sunset over the lake in Geneva" })
      const song = yield* parse("song.mp3", mp3WithTags("Lake Song", "Melanie"))
      expect(song.text).toContain("Title: Lake Song")
      expect(song.text).toContain("Artist: Melanie")
    })
  )

  it.effect("describes an image, an audio file and a PDF that carry no text of their own", () =>
    Effect.gen(function* () {
      const bare = yield* parse("bare.jpg", jpegWithDescription(""))
      expect(bare).toMatchObject({
        format: "image/jpeg",
        text: expect.stringMatching(/^JPG image bare\.jpg(, \d+×\d+ pixels)?, with no text of its own$/)
      })
      const scan = yield* parse("scan.pdf", pdfWithText(""))
      expect(scan).toMatchObject({
        format: "pdf",
        text: expect.stringMatching(/^PDF document scan\.pdf, 1 page, with no text layer/)
      })
    })
  )

  it.effect("refuses unknown binaries as unsupported and empty files as having no text", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(parse("archive.zip", zipHeader))).reason).toBe("UnsupportedType")
      expect((yield* Effect.flip(parse("blob.bin", new Uint8Array([0xc3, 0x28, 0xa0, 0xa1])))).reason).toBe(
        "UnsupportedType"
      )
      expect((yield* Effect.flip(parse("empty.txt", text("  \n ")))).reason).toBe("NoText")
      expect((yield* Effect.flip(parse("broken.json", text("{nope")))).reason).toBe("Malformed")
    })
  )
})
