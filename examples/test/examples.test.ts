import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

// The examples run exactly as the README shows them, through tsx, as a user would.
const runExample = async (file: string, text: string) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", file, text],
    {
      env: { ...process.env, UMO_EMBEDDER: "use-lite" }
    }
  )
  return JSON.parse(stdout)
}

describe("examples", () => {
  it("quickstart prints a complete UMO for the README's sentence", async () => {
    const umo = await runExample(
      "examples/quickstart.ts",
      "Marie Curie was born in Warsaw and worked in Paris."
    )
    expect(umo.entities).toContainEqual(expect.objectContaining({ text: "Marie Curie", type: "PERSON" }))
    expect(umo.entities.some((e: { type: string }) => e.type === "LOCATION")).toBe(true)
    expect(umo.svo_triples.length).toBeGreaterThan(0)
    expect(umo.topics.length).toBeGreaterThan(0)
    expect(umo.summary.length).toBeGreaterThan(0)
    expect(umo.tone).toEqual({ label: expect.any(String), score: expect.any(Number) })
    expect(umo.quality_score).toBeGreaterThan(0)
    expect(umo.embedding).toMatchObject({ dimensions: 512, chunks: 1 })
    expect(umo.embedding.first_values).toHaveLength(4)
  })

  it("in-process captures, answers, verifies offline and forgets with openMemory, no server", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "umo-example-"))
    try {
      const out = await runExample("examples/in-process.ts", dataDir)
      expect(out.captured.umo_id).toMatch(/^[0-9a-f-]{36}$/)
      expect(out.answer.cited).toEqual([out.captured.umo_id])
      expect(out.answer.text).toContain("[1]")
      expect(out.verified).toEqual({ valid: true, offline: true })
      expect(out.forgotten).toEqual({ forgotten: true, receipt_of: out.captured.umo_id })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("custom-plugin runs a user's hashtag plugin in the extract stage", async () => {
    const out = await runExample("examples/custom-plugin.ts", "Big day #Launch #umo #launch")
    expect(out.hashtags).toEqual(["launch", "umo"])
    expect(out.pipeline).toContain("extract:hashtags@1.0.0")
  })
})

// The machine's PATH, without the newer Node scripts/with-node.sh put first: `npx tsx` as a user
// types it runs on the machine's Node (Node 20 here), which the examples must not need.
const machinePath = (process.env["PATH"] ?? "")
  .split(delimiter)
  .filter((dir) => !dir.startsWith(join(import.meta.dirname, "../../.cache")))
  .join(delimiter)
const machineNode = await promisify(execFile)("node", ["-p", "process.versions.node"], {
  env: { ...process.env, PATH: machinePath }
}).then(
  ({ stdout }) => stdout.trim(),
  () => undefined
)
const [major = 0, minor = 0] = (machineNode ?? "99").split(".").map(Number)

describe.skipIf(major > 22 || (major === 22 && minor >= 19))(
  `the examples on the machine's Node (${machineNode})`,
  () => {
    it("run again on a newer Node, never with a SyntaxError", async () => {
      const { stdout, stderr } = await promisify(execFile)(
        "node",
        ["node_modules/tsx/dist/cli.mjs", "examples/custom-plugin.ts", "Big day #Launch"],
        { env: { ...process.env, PATH: machinePath, UMO_EMBEDDER: "use-lite" } }
      )
      expect(stderr).not.toContain("SyntaxError")
      expect(JSON.parse(stdout).hashtags).toEqual(["launch"])
    })
  }
)
