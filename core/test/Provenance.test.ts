import { recordHash } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

describe("record hash", () => {
  it("hashes vectors at single precision, as pgvector stores them (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }), {
          minLength: 1,
          maxLength: 32
        }),
        (vector) => {
          const record = (v: ReadonlyArray<number>) => ({
            account_id: "a",
            umo_id: "u",
            source: null,
            timestamp: "t",
            created_at: "c",
            embedding_model: "m",
            chunks: [{ index: 0, start: 0, end: 1, vector: v }]
          })
          // What comes back from the database is the float32 value written with at most 9 digits.
          const roundTripped = vector.map((x) => Number(Math.fround(x).toPrecision(9)))
          expect(recordHash(record(roundTripped))).toBe(recordHash(record(vector)))
        }
      ),
      { numRuns: 200 }
    )
  })
})
