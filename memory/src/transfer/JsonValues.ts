/**
 * JSON values read from text as it arrives, each with the line it starts on: one value a line
 * (JSON Lines: an export of UMO, or Mem0 memories one a line), the elements of a JSON array, or
 * the elements of the first array in a JSON object (`{"results": [...]}`, as Mem0's `get_all`
 * answers). Only the value being read is held, so an input of 100,000 memories takes the memory
 * of one. A line or element that is not JSON, or is longer than `maxValueChars`, is an error item
 * with its line number, and reading goes on.
 * @module
 */

/** A value read, or why one could not be. */
export type JsonItem =
  | { readonly line: number; readonly value: unknown }
  | { readonly line: number; readonly error: string }

/** Longest value read: a memory's content is at most 1,000,000 characters, and its vectors about as many. */
export const maxValueChars = 8_000_000

type Mode = "unknown" | "lines" | "array" | "seek-array"

/** Reads JSON values from text pushed a chunk at a time; `end` reads what is left. */
export class JsonValuesReader {
  private mode: Mode = "unknown"
  private line = 1
  // The value (or line) being read, and where it started.
  private text = ""
  private startLine = 1
  // Inside the array of elements: nesting of the element being read, and string state.
  private depth = 0
  private inString = false
  private escaped = false
  private tooLong = false
  /** Whether a JSON document (array mode) reached its closing bracket. */
  private closed = false

  /** Whether the input was a JSON document whose array of values was read to its end. */
  get documentComplete(): boolean {
    return this.closed
  }

  /** Whether the input is a JSON document (its values are array elements), not JSON Lines. */
  get isDocument(): boolean {
    return this.mode === "array" || this.mode === "seek-array"
  }

  push(chunk: string): ReadonlyArray<JsonItem> {
    const out: Array<JsonItem> = []
    let i = 0
    while (i < chunk.length) {
      // JSON Lines (an export: lines of kilobytes of vectors) are cut at their newlines in bulk;
      // a document's elements are read a character at a time, their nesting counted. Structure is
      // ASCII, so code units do.
      if (this.mode === "lines") {
        const newline = chunk.indexOf("\n", i)
        const piece = newline < 0 ? chunk.slice(i) : chunk.slice(i, newline)
        if (this.text.length + piece.length > maxValueChars) this.tooLong = true
        else this.text += piece
        if (newline < 0) break
        this.readLine("\n", out)
        i = newline + 1
      } else {
        this.read(chunk[i]!, out)
        i++
      }
    }
    return out
  }

  end(): ReadonlyArray<JsonItem> {
    const out: Array<JsonItem> = []
    if (this.mode === "lines" || this.mode === "unknown") this.endLine(out)
    else if (this.text.trim() !== "") this.endElement(out)
    else if (this.mode === "seek-array" || (this.mode === "array" && !this.closed))
      out.push({ line: this.line, error: "the JSON document ends before its array of memories closes" })
    return out
  }

  private read(char: string, out: Array<JsonItem>) {
    if (this.mode === "unknown") {
      if (char === "\uFEFF" || char === " " || char === "\t" || char === "\r") return
      if (char === "\n") {
        this.line++
        return
      }
      // An array is a document of elements; an object is a document when its first line is not a
      // whole value (checked at the end of that line), JSON Lines otherwise.
      if (char === "[") {
        this.mode = "array"
        return
      }
      this.mode = "lines"
      this.startLine = this.line
    }
    if (this.mode === "lines") return this.readLine(char, out)
    if (this.mode === "seek-array") return this.seekArray(char)
    this.readElement(char, out)
  }

  private readLine(char: string, out: Array<JsonItem>) {
    if (char === "\n") {
      // A first line that is the start of an object, not a whole one: a JSON document.
      if (this.line === this.startLine && this.startsDocument()) {
        this.mode = "seek-array"
        const opened = this.text
        this.text = ""
        this.line++
        for (const c of opened.slice(1)) this.seekArray(c)
        return
      }
      this.endLine(out)
      this.line++
      this.startLine = this.line
      return
    }
    if (this.text.length >= maxValueChars) this.tooLong = true
    else this.text += char
  }

  /** Whether the first line opens an object it does not close (a pretty-printed document). */
  private startsDocument(): boolean {
    const first = this.text.trim()
    if (!first.startsWith("{") || this.startLine !== 1 || this.readsWhole(first)) return false
    return true
  }

  private readsWhole(text: string): boolean {
    try {
      JSON.parse(text)
      return true
    } catch {
      return false
    }
  }

  private endLine(out: Array<JsonItem>) {
    const text = this.text.replace(/\r$/, "")
    this.text = ""
    if (this.tooLong) {
      this.tooLong = false
      out.push({
        line: this.startLine,
        error: `the line is longer than ${maxValueChars.toLocaleString("en")} characters`
      })
      return
    }
    if (text.trim() === "") return
    try {
      out.push({ line: this.startLine, value: JSON.parse(text) })
    } catch (error) {
      out.push({ line: this.startLine, error: `not JSON: ${(error as Error).message}` })
    }
  }

  /** In an object document, up to the first array (Mem0's `results`): its elements are the values. */
  private seekArray(char: string) {
    if (char === "\n") this.line++
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (char === "\\") this.escaped = true
      else if (char === '"') this.inString = false
      return
    }
    if (char === '"') this.inString = true
    else if (char === "{") this.depth++
    else if (char === "}") this.depth--
    else if (char === "[" && this.depth === 0) {
      this.mode = "array"
      this.depth = 0
    }
  }

  private readElement(char: string, out: Array<JsonItem>) {
    if (this.closed) {
      if (char === "\n") this.line++
      return
    }
    if (this.text === "" && /\s/.test(char)) {
      if (char === "\n") this.line++
      return
    }
    if (this.text === "") this.startLine = this.line
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (char === "\\") this.escaped = true
      else if (char === '"') this.inString = false
    } else if (char === '"') this.inString = true
    else if (char === "{" || char === "[") this.depth++
    else if (char === "}") this.depth--
    else if (char === "]") {
      if (this.depth === 0) {
        if (this.text.trim() !== "") this.endElement(out)
        this.closed = true
        return
      }
      this.depth--
    } else if (char === "," && this.depth === 0) {
      this.endElement(out)
      return
    }
    if (char === "\n") this.line++
    if (this.text.length >= maxValueChars) this.tooLong = true
    else this.text += char
  }

  private endElement(out: Array<JsonItem>) {
    const text = this.text
    this.text = ""
    this.depth = 0
    if (this.tooLong) {
      this.tooLong = false
      out.push({
        line: this.startLine,
        error: `the value is longer than ${maxValueChars.toLocaleString("en")} characters`
      })
      return
    }
    try {
      out.push({ line: this.startLine, value: JSON.parse(text) })
    } catch (error) {
      out.push({ line: this.startLine, error: `not JSON: ${(error as Error).message}` })
    }
  }
}
