import { parse as parseCsv } from "csv-parse/sync"
import { convert as htmlToText } from "html-to-text"

/** Readable text from HTML: block structure kept as lines, links and images as their text. */
export const fromHtml = (html: string): string =>
  htmlToText(html, {
    wordwrap: false,
    selectors: [
      { selector: "a", options: { ignoreHref: true } },
      { selector: "img", format: "skip" },
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" }
    ]
  })

/** Every string in a JSON document, as `path: value` lines, so keys give values their meaning. */
export const fromJson = (json: string): string => {
  const lines: Array<string> = []
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      lines.push(path ? `${path}: ${value}` : String(value))
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, path ? `${path}[${i}]` : `[${i}]`)
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key)
    }
  }
  walk(JSON.parse(json), "")
  return lines.join("\n")
}

/** A CSV table as one line per row, each cell named by its header: `name: Ada; city: London`. */
export const fromCsv = (csv: string): string => {
  const rows = parseCsv(csv, { skip_empty_lines: true, relax_column_count: true, bom: true }) as Array<
    Array<string>
  >
  const [header, ...body] = rows
  if (!header) return ""
  if (body.length === 0) return header.join(", ")
  return body
    .map((row) =>
      row
        .map((cell, i) => (cell.trim() ? `${header[i]?.trim() || `column ${i + 1}`}: ${cell.trim()}` : ""))
        .filter(Boolean)
        .join("; ")
    )
    .filter(Boolean)
    .join("\n")
}
