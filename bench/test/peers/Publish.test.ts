/**
 * Where a run's results go: a full run rewrites the README's head-to-head block (and nothing else
 * of the README) and bench/peers.md; a partial run leaves both alone.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { peerScores } from "../../src/peers/Metrics.js"
import { headToHead, publish } from "../../src/peers/Publish.js"
import type { PeersResults, SystemResult } from "../../src/peers/Report.js"

const rows = (hits: number) =>
  Array.from({ length: 10 }, (_, i) => ({
    category: 1 + (i % 5),
    evidence: [`D${i + 1}:1`],
    ranked: i < hits ? [`D${i + 1}:1`] : [`D${i + 1}:2`, `D${i + 2}:1`]
  }))

const system = (id: string, label: string, hits: number, p50: number): SystemResult => ({
  id,
  label,
  versions: { [id === "umo" ? "@umo/server" : id]: "9.9.9", node: "v0" },
  config: {},
  recall: {
    capture: { memories: 10, seconds: 1, per_second: 10 },
    search_ms: { p50, p95: p50 * 2 },
    usage: { rss_mb: 100, disk_mb: 5 },
    scores: peerScores(rows(hits))
  },
  scale: [
    { size: 1000, capture_per_second: 7, search_ms: { p50, p95: p50 + 1 }, usage: { rss_mb: 1, disk_mb: 2 } }
  ]
})

const results = (quick: boolean, umoHits = 8): PeersResults => ({
  benchmark: "test",
  quick,
  machine: { cores: 2, cpu: "Test CPU", memory_gb: 24, node: "v0", date: "2026-11-24" },
  data: { conversations: ["conv-a"], memories: 10, questions: 10 },
  sizes: [1000],
  systems: [system("umo", "UMO", umoHits, 50), system("mem0", "Mem0 OSS (infer=False)", 4, 200)],
  fairness: {}
})

const readme = `# Project

## Benchmarks

<!-- peers:start -->
old figures
<!-- peers:end -->

## Layout
kept as it was
`

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "umo-publish-"))
  mkdirSync(join(root, "bench"))
  writeFileSync(join(root, "README.md"), readme)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe("publishing bench:peers", () => {
  it("a full run replaces the README's block with the run's table and charts, and writes the page", () => {
    publish(root, results(false), { writeJson: true })
    const text = readFileSync(join(root, "README.md"), "utf8")
    expect(text).not.toContain("old figures")
    expect(text).toContain("## Layout\nkept as it was\n")
    expect(text).toMatch(/\| UMO \| 80\.0 \| 80\.0 \| 80\.0 \| 0\.800 \|/)
    expect(text).toMatch(/\| Mem0 OSS \(infer=False\) \| 40\.0 \|/)
    expect(text).toContain("](bench/results/peers.svg)")
    expect(text).toContain("](bench/results/peers-scale.svg)")
    expect(text).toContain("@umo/server 9.9.9, mem0 9.9.9")
    for (const file of ["bench/peers.md", "bench/results/peers.json", "bench/results/peers.svg"])
      expect(existsSync(join(root, file))).toBe(true)

    // Run again with other figures: one block, the new figures.
    publish(root, results(false, 3), { writeJson: false })
    const again = readFileSync(join(root, "README.md"), "utf8")
    expect(again.match(/<!-- peers:start -->/g)).toHaveLength(1)
    expect(again).toMatch(/\| UMO \| 30\.0 \|/)
    expect(
      JSON.parse(readFileSync(join(root, "bench/results/peers.json"), "utf8")).systems[0].recall.scores.all
        .recall[1]
    ).toBe(80)
  })

  it("a quick or partial run leaves the README and bench/peers.md alone", () => {
    publish(root, results(true), { writeJson: true })
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(readme)
    expect(existsSync(join(root, "bench/peers.md"))).toBe(false)
    expect(existsSync(join(root, "bench/results/peers-quick.md"))).toBe(true)
    expect(existsSync(join(root, "bench/results/peers-quick.json"))).toBe(true)
  })

  it("leaves the scale part out of the README block when the run had none", () => {
    const text = headToHead({ ...results(false), sizes: [] })
    expect(text).not.toContain("peers-scale.svg")
    expect(text).toContain("bench/peers.md")
  })
})
