import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { AccountIndex } from "../../src/search/AccountIndex.js"
import { memory } from "./heldMemories.js"

const dir = mkdtempSync(join(tmpdir(), "umo-account-index-test-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("AccountIndex.bytes", () => {
  it("grows with what it holds: a few memories take kilobytes, not a block or a page each (the budget counts every account)", () => {
    const base = fc.sample(memory, { numRuns: 1, seed: 3 })[0]!
    const index = new AccountIndex(8, dir, 1)
    const empty = index.bytes
    for (let i = 0; i < 3; i++)
      index.add({
        ...base,
        umo_id: `0190a000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`,
        terms: [["word", 1]],
        length: 1,
        vectors: [Float32Array.from({ length: 8 }, (_, d) => d + i)]
      })
    expect(index.bytes - empty).toBeGreaterThan(0)
    expect(index.bytes).toBeLessThan(300_000)
    index.close()
  })
})
