import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LiveServer, startServer } from "./support/ServerProcess.js"

const root = join(import.meta.dirname, "../..")
const key = "umo_served-plugin-test-key-000000000000000"
let server: LiveServer

// `npm start` with UMO_CONFIG: the reference server runs a plugin it was not built with.
beforeAll(async () => {
  server = await startServer(
    root,
    { [key]: "plugin-user" },
    { UMO_CONFIG: "examples/served-plugin/umo.config.ts", UMO_EMBEDDER: "use-lite" }
  )
}, 200_000)
afterAll(() => server?.stop())

describe("a custom plugin served through UMO_CONFIG", () => {
  it("shows its findings in GET /v1/memories/{id} and in explain", async () => {
    const umo = new UMOClient({ baseUrl: server.baseUrl, apiKey: key })
    const { umoId } = await umo.capture("Shipped the beta today #Launch #umo #launch with Ana.")
    const memory = await umo.get(umoId)
    expect(memory.extensions).toEqual({ hashtags: ["launch", "umo"] })
    expect((memory.raw.pipeline as Array<{ name: string }>).map((p) => p.name)).toContain("hashtags")
    const explained = await umo.explain(umoId)
    expect(explained.keyReasons).toContain("Plugin hashtags found: launch, umo")
    expect(explained.reproducible).toBe(true)
    expect((await umo.verify(umoId)).valid).toBe(true)
  })

  it("keeps the server from starting when a plugin's options are invalid, naming the plugin", async () => {
    const config = "server/test/support/configs/bad-plugin-options.config.ts"
    const failed = await startServer(
      root,
      { [key]: "x" },
      { UMO_CONFIG: config, UMO_EMBEDDER: "use-lite" }
    ).catch((e: Error) => e)
    expect(failed).toBeInstanceOf(Error)
    expect((failed as Error).message).toMatch(/exited with 1/)
    expect((failed as Error).message).toContain('plugin "hashtags": invalid options')
    expect((failed as Error).message).toContain(config)
  }, 200_000)

  it("keeps the server from starting when two plugins share a name, or the file is missing", async () => {
    const duplicate = await startServer(
      root,
      { [key]: "x" },
      { UMO_CONFIG: "server/test/support/configs/duplicate-plugin.config.ts", UMO_EMBEDDER: "use-lite" }
    ).catch((e: Error) => e)
    expect((duplicate as Error).message).toContain('plugin "hashtags": two plugins share this name')
    const missing = await startServer(root, { [key]: "x" }, { UMO_CONFIG: "no/such/umo.config.ts" }).catch(
      (e: Error) => e
    )
    expect((missing as Error).message).toContain("no/such/umo.config.ts: no such file (UMO_CONFIG)")
  }, 200_000)
})
