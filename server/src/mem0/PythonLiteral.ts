/**
 * Reads a Python literal — what `str()` of a dict gives, as in `{'user_id': 'alice'}` — into JSON.
 * Mem0's Python client sends `delete_all(filters={...})` that way: httpx puts the dict in the query
 * string as its `str()`. Only what such a value holds is read (dicts, lists, tuples, strings,
 * numbers, True, False, None); anything else is not a literal and is refused, never evaluated.
 * @module
 */

/** The value, or undefined when the text is not such a literal. */
export const readPythonLiteral = (text: string): unknown => {
  let at = 0
  const space = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++
  }
  const fail = (): never => {
    throw new SyntaxError(`not a Python literal at ${at}`)
  }
  const expect = (c: string) => {
    space()
    if (text[at] !== c) fail()
    at++
  }
  const escapes: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "0": "\0"
  }
  const string = (): string => {
    const quote = text[at++]!
    let out = ""
    while (at < text.length && text[at] !== quote) {
      if (text[at] !== "\\") {
        out += text[at++]
        continue
      }
      const c = text[at + 1] ?? fail()
      if (c === "x" || c === "u" || c === "U") {
        const digits = { x: 2, u: 4, U: 8 }[c]
        const hex = text.slice(at + 2, at + 2 + digits)
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) fail()
        out += String.fromCodePoint(Number.parseInt(hex, 16))
        at += 2 + digits
      } else {
        out += escapes[c] ?? fail()
        at += 2
      }
    }
    if (text[at] !== quote) fail()
    at++
    return out
  }
  const items = (close: string): Array<unknown> => {
    const out: Array<unknown> = []
    space()
    while (text[at] !== close) {
      out.push(value())
      space()
      if (text[at] === ",") at++
      else if (text[at] !== close) fail()
      space()
    }
    at++
    return out
  }
  const value = (): unknown => {
    space()
    const c = text[at]
    if (c === "'" || c === '"') return string()
    if (c === "[" || c === "(") {
      at++
      return items(c === "[" ? "]" : ")")
    }
    if (c === "{") {
      at++
      const out: Record<string, unknown> = {}
      space()
      while (text[at] !== "}") {
        space()
        const key = text[at] === "'" || text[at] === '"' ? string() : fail()
        expect(":")
        out[key] = value()
        space()
        if (text[at] === ",") at++
        else if (text[at] !== "}") fail()
        space()
      }
      at++
      return out
    }
    const word = /^(True|False|None|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(at))?.[0] ?? fail()
    at += word.length
    return word === "True" ? true : word === "False" ? false : word === "None" ? null : Number(word)
  }
  try {
    const result = value()
    space()
    return at === text.length ? result : undefined
  } catch {
    return undefined
  }
}

/** A query-string value holding JSON or a Python literal, read; undefined when it is neither. */
export const readStructured = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return readPythonLiteral(text)
  }
}
