import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setImmediate as nextTurn } from "node:timers/promises"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { ExactRows } from "../../src/search/ExactRows.js"

const dir = mkdtempSync(join(tmpdir(), "umo-exact-rows-test-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const dims = 4
const rowOf = (slot: number, version: number) =>
  Float32Array.from({ length: dims }, (_, d) => slot * 10 + d + version / 100)

describe("ExactRows", () => {
  it("reads back every row as written, whether its write behind is done or not (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant("append" as const), rows: fc.integer({ min: 1, max: 600 }) }),
            fc.record({ kind: fc.constant("skip" as const), rows: fc.integer({ min: 1, max: 3 }) }),
            fc.record({ kind: fc.constant("turn" as const) })
          ),
          { maxLength: 25 }
        ),
        async (steps) => {
          const rows = new ExactRows(dims, dir)
          const model: Array<Float32Array | undefined> = []
          const check = () => {
            for (let slot = 0; slot < model.length; slot += 7)
              if (model[slot] !== undefined)
                expect(rows.read(slot, new Float32Array(dims))).toEqual(model[slot])
            const from = model.length - 3
            if (from >= 0 && model.slice(from).every((row) => row !== undefined)) {
              expect(rows.read(from, new Float32Array(3 * dims), 3)).toEqual(
                Float32Array.from([...model[from]!, ...model[from + 1]!, ...model[from + 2]!])
              )
            }
          }
          for (const [version, step] of steps.entries()) {
            if (step.kind === "append") {
              for (let i = 0; i < step.rows; i++) {
                const slot = model.length
                model.push(rowOf(slot, version))
                rows.write(slot, model[slot]!)
              }
              // Not on file yet: what `check` reads next comes from memory.
              expect(rows.behind).toBeGreaterThan(0)
            } else if (step.kind === "skip") {
              // Slots never written (a set never reads one).
              for (let i = 0; i < step.rows; i++) model.push(undefined)
              const slot = model.length
              model.push(rowOf(slot, version))
              rows.write(slot, model[slot]!)
            } else await nextTurn()
            check()
          }
          // Once every write behind is done, the file alone holds them.
          while (rows.behind > 0) await new Promise((resolve) => setTimeout(resolve, 1))
          check()
          expect(() => rows.write(model.length - 1, rowOf(0, 0))).toThrow(/written after/)
          rows.close()
          expect(() => rows.read(0, new Float32Array(dims))).toThrow(/closed/)
        }
      ),
      { numRuns: 40 }
    )
  })
})
