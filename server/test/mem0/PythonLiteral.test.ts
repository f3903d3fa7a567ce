import { execFileSync } from "node:child_process"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { readPythonLiteral, readStructured } from "../../src/mem0/PythonLiteral.js"

/** What `str()` of a dict gives, as Mem0's Python client puts `delete_all(filters=…)` in a query string. */
const pythonStr = (values: ReadonlyArray<unknown>): Array<string> =>
  JSON.parse(
    execFileSync(
      "python3",
      ["-c", "import json,sys; print(json.dumps([str(v) for v in json.load(sys.stdin)]))"],
      {
        input: JSON.stringify(values)
      }
    ).toString()
  )

describe("reading a Python literal", () => {
  it("reads what Python's str() of a dict of ids gives", () => {
    expect(readStructured("{'user_id': 'alice'}")).toEqual({ user_id: "alice" })
    expect(readStructured('{"user_id": "alice"}')).toEqual({ user_id: "alice" })
    expect(readPythonLiteral("{'a': [1, 2.5, True, False, None], 'b': ('x',)}")).toEqual({
      a: [1, 2.5, true, false, null],
      b: ["x"]
    })
    expect(readPythonLiteral(`{'it\\'s': "say \\"hi\\"\\n", 'é': '\\xe9\\u00e9'}`)).toEqual({
      "it's": 'say "hi"\n',
      é: "éé"
    })
  })

  it("refuses anything else, never evaluating it", () => {
    for (const text of [
      "[object Object]",
      "{'a': b}",
      "__import__('os')",
      "{'a': 1",
      "{'a': 1} x",
      "",
      "{1: 2}"
    ])
      expect(readStructured(text), text).toBeUndefined()
  })

  it("reads back every dict Python writes (fast-check values through the real python3)", () => {
    const scalar = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null)
    )
    const values = fc.sample(
      fc.dictionary(
        fc.string({ unit: "binary", maxLength: 8 }),
        fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }))
      ),
      { numRuns: 300, seed: 20261128 }
    )
    const written = pythonStr(values)
    for (const [i, value] of values.entries())
      expect(readPythonLiteral(written[i]!), written[i]).toEqual(value)
  })
})
