/**
 * `npm run bench`: every benchmark in turn — capture throughput, search latency and capture at
 * scale, responsiveness during a big capture, provenance cost, scale-out — each writing
 * bench/results/*.json, an SVG chart and (full runs) its table in bench/README.md.
 * `npm run bench -- --quick` runs small versions of them in about two minutes and leaves the
 * committed results alone. Set UMO_BENCH_DATABASE_URL (a fresh PostgreSQL database with
 * pgvector) to measure PostgreSQL too; scale-out's one-process-vs-two part needs it, its read
 * replica and failover parts build their own primary and standby (root and Debian's
 * postgresql-common). The LoCoMo recall benchmark is separate: `npm run bench:recall`.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { quick, root } from "./support/Cli.js"

// Scale-out says which of its parts it skips and why (no UMO_BENCH_DATABASE_URL, no cluster tools).
const benches = ["capture", "search", "responsiveness", "provenance", "scaleout"]
const started = performance.now()

for (const [i, bench] of benches.entries()) {
  console.log(`\n== ${i + 1}/${benches.length} ${bench}${quick ? " (quick)" : ""}`)
  const benchStarted = performance.now()
  const run = spawnSync(
    process.execPath,
    [
      join(root, "node_modules/tsx/dist/cli.mjs"),
      join(root, "bench", "src", `${bench}.ts`),
      ...(quick ? ["--quick"] : [])
    ],
    { cwd: root, stdio: "inherit", env: process.env }
  )
  if (run.status !== 0) {
    console.error(`bench: ${bench} failed (exit ${run.status})`)
    process.exit(1)
  }
  console.log(`== ${bench}: ${Math.round((performance.now() - benchStarted) / 1000)} s`)
}
console.log(`\nbench: done in ${Math.round((performance.now() - started) / 1000)} s`)
