import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { workerPool } from "../../src/support/WorkerPool.js"

const dir = mkdtempSync(join(tmpdir(), "umo-worker-pool-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("workerPool", () => {
  it("caps each thread's young generation (a bulk load would grow it to V8's largest and leave it resident)", async () => {
    // A worker that reports the limits its thread runs under.
    writeFileSync(
      join(dir, "Limits.ts"),
      `import { resourceLimits } from "node:worker_threads"\nexport default () => resourceLimits\n`
    )
    const pool = workerPool(pathToFileURL(join(dir, "base.ts")).href, "Limits", { maxThreads: 1 })
    try {
      const limits = (await pool.run(null)) as { maxYoungGenerationSizeMb: number }
      // Left to V8, a worker's limit was 192 MB on a machine of 24 GB.
      expect(limits.maxYoungGenerationSizeMb).toBeGreaterThan(0)
      expect(limits.maxYoungGenerationSizeMb).toBeLessThanOrEqual(24)
    } finally {
      await pool.destroy()
    }
  })
})
