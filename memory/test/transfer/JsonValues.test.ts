import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { JsonValuesReader } from "../../src/transfer/JsonValues.js"

/** Reads `text` cut into chunks at `cuts` (positions). */
const read = (text: string, cuts: ReadonlyArray<number>) => {
  const reader = new JsonValuesReader()
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const items = []
  let from = 0
  for (const to of [...at, text.length]) {
    items.push(...reader.push(text.slice(from, to)))
    from = to
  }
  items.push(...reader.end())
  return { items, reader }
}

// Objects whose strings hold what the reader must see through: brackets, commas, quotes, newlines.
const value = fc.record({
  id: fc.string(),
  memory: fc.string({ unit: fc.constantFrom("a", "[", "]", "{", "}", ",", '"', "\\", "\n", "é", "😀", " ") }),
  n: fc.integer(),
  tags: fc.array(fc.string(), { maxLength: 3 })
})

describe("JsonValuesReader", () => {
  it("reads the same values, in order, from JSON Lines, an array or an object's array, however cut (property)", () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (values, cuts) => {
          const lines = values.map((v) => JSON.stringify(v)).join("\r\n")
          const asLines = read(lines, cuts)
          expect(asLines.items.map((i) => ("value" in i ? i.value : i.error))).toEqual(values)
          // Each line's number: the first value on line 1, the next on 2…
          expect(asLines.items.map((i) => i.line)).toEqual(values.map((_, i) => i + 1))
          for (const text of [
            JSON.stringify(values, null, 2),
            JSON.stringify({ results: values }, null, 2)
          ]) {
            const { items, reader } = read(text, cuts)
            expect(items.map((i) => ("value" in i ? i.value : i.error))).toEqual(values)
            expect(reader.documentComplete || values.length === 0).toBe(true)
          }
        }
      )
    )
  })

  it("reports a line that is not JSON by its number, and reads on", () => {
    const { items } = read('{"a":1}\n{oops\n\n{"b":2}\n', [5])
    expect(items).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, error: expect.stringMatching(/^not JSON/) },
      { line: 4, value: { b: 2 } }
    ])
  })

  it("says when a document ends before its array closes", () => {
    const { items, reader } = read('[{"a":1},\n{"b":', [])
    expect(items.map((i) => "error" in i)).toEqual([false, true])
    expect(reader.documentComplete).toBe(false)
  })
})
