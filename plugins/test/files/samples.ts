/** Small real files built byte by byte, so upload tests need no fixtures on disk. */

const ascii = (s: string) => new TextEncoder().encode(s)
const concat = (...parts: Array<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** A one-page PDF whose content stream draws `text` in Helvetica, with a correct xref table. */
export const pdfWithText = (text: string): Uint8Array => {
  const stream = `BT /F1 18 Tf 72 720 Td (${text.replace(/[()\\]/g, "\\$&")}) Tj ET`
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
  ]
  let body = "%PDF-1.4\n"
  const offsets: Array<number> = []
  objects.forEach((o, i) => {
    offsets.push(body.length)
    body += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const o of offsets) body += `${String(o).padStart(10, "0")} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return ascii(body)
}

/** A JPEG (start and end markers around an EXIF segment) whose ImageDescription is `description`. */
export const jpegWithDescription = (description: string): Uint8Array => {
  const value = ascii(`${description}\0`)
  // TIFF header (little-endian), one IFD entry: 0x010E ImageDescription, ASCII, stored after the IFD.
  const tiff = new DataView(new ArrayBuffer(8 + 2 + 12 + 4))
  tiff.setUint16(0, 0x4949)
  tiff.setUint16(2, 42, true)
  tiff.setUint32(4, 8, true)
  tiff.setUint16(8, 1, true)
  tiff.setUint16(10, 0x010e, true)
  tiff.setUint16(12, 2, true)
  tiff.setUint32(14, value.length, true)
  // Values of up to 4 bytes sit in the entry itself; longer ones after the IFD.
  const inline = value.length <= 4
  if (inline) for (const [i, byte] of value.entries()) tiff.setUint8(18 + i, byte)
  else tiff.setUint32(18, 26, true)
  tiff.setUint32(22, 0, true)
  const exif = concat(ascii("Exif\0\0"), new Uint8Array(tiff.buffer), inline ? new Uint8Array() : value)
  const length = new Uint8Array([(exif.length + 2) >> 8, (exif.length + 2) & 0xff])
  return concat(new Uint8Array([0xff, 0xd8, 0xff, 0xe1]), length, exif, new Uint8Array([0xff, 0xd9]))
}

/** An MP3 that is only an ID3v2.3 tag with a title and an artist, then one silent MPEG frame. */
export const mp3WithTags = (title: string, artist: string): Uint8Array => {
  const frame = (id: string, text: string) => {
    const data = concat(new Uint8Array([0]), ascii(text))
    const size = new Uint8Array([0, 0, data.length >> 8, data.length & 0xff])
    return concat(ascii(id), size, new Uint8Array([0, 0]), data)
  }
  const frames = concat(frame("TIT2", title), frame("TPE1", artist))
  const n = frames.length
  const syncsafe = new Uint8Array([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])
  const mpegFrame = new Uint8Array(417)
  mpegFrame.set([0xff, 0xfb, 0x90, 0x64])
  return concat(ascii("ID3"), new Uint8Array([3, 0, 0]), syncsafe, frames, mpegFrame)
}

export const zipHeader = concat(ascii("PK\u0003\u0004"), new Uint8Array(40))
