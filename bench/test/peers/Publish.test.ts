/**
 * Where a run's results go: a full run rewrites bench/README.md's head-to-head block (and nothing
 * else of it, nor the repository's README) and bench/peers.md; a partial run leaves them alone.
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

const readme = `# Benchmarks

## Beside Mem0 and Engram

<!-- peers:start -->
old figures
<!-- peers:end -->

## Search against its own query embedding
kept as it was
`

const rootReadme = "# Project\n\nA first-hour page with no peers block.\n"
const benchReadme = () => readFileSync(join(root, "bench", "README.md"), "utf8")

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "umo-publish-"))
  mkdirSync(join(root, "bench"))
  writeFileSync(join(root, "README.md"), rootReadme)
  writeFileSync(join(root, "bench", "README.md"), readme)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe("publishing bench:peers", () => {
  it("a full run replaces bench/README.md's block with the run's table and charts, and writes the page", () => {
    const written = publish(root, results(false), { writeJson: true })
    const text = benchReadme()
    expect(text).not.toContain("old figures")
    expect(text).toContain("## Search against its own query embedding\nkept as it was\n")
    expect(text).toMatch(/\| UMO \| 80\.0 \| 80\.0 \| 80\.0 \| 0\.800 \|/)
    expect(text).toMatch(/\| Mem0 OSS \(infer=False\) \| 40\.0 \|/)
    // Links relative to bench/README.md.
    expect(text).toContain("](results/peers.svg)")
    expect(text).toContain("](results/peers-scale.svg)")
    expect(text).toContain("[`peers.md`](peers.md)")
    expect(text).not.toContain("bench/results/")
    expect(written).toContain("bench/README.md (the peers block)")
    // The repository's README is left alone: no block appended to it.
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(rootReadme)
    expect(text).toContain("@umo/server 9.9.9, mem0 9.9.9")
    for (const file of ["bench/peers.md", "bench/results/peers.json", "bench/results/peers.svg"])
      expect(existsSync(join(root, file))).toBe(true)

    // Run again with other figures: one block, the new figures.
    publish(root, results(false, 3), { writeJson: false })
    const again = benchReadme()
    expect(again.match(/<!-- peers:start -->/g)).toHaveLength(1)
    expect(again).toMatch(/\| UMO \| 30\.0 \|/)
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(rootReadme)
    expect(
      JSON.parse(readFileSync(join(root, "bench/results/peers.json"), "utf8")).systems[0].recall.scores.all
        .recall[1]
    ).toBe(80)
  })

  it("a quick or partial run leaves both READMEs and bench/peers.md alone", () => {
    publish(root, results(true), { writeJson: true })
    expect(benchReadme()).toBe(readme)
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(rootReadme)
    expect(existsSync(join(root, "bench/peers.md"))).toBe(false)
    expect(existsSync(join(root, "bench/results/peers-quick.md"))).toBe(true)
    expect(existsSync(join(root, "bench/results/peers-quick.json"))).toBe(true)
  })

  it("leaves the scale part out of the README block when the run had none", () => {
    const text = headToHead({ ...results(false), sizes: [] })
    expect(text).not.toContain("peers-scale.svg")
    expect(text).toContain("(peers.md)")
  })
})
