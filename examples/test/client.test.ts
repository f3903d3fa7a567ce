import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../server/test/support/TestServer.js"

// Both client examples, run as the README shows them, against a live server.
let server: Awaited<ReturnType<typeof startListening>>
beforeAll(async () => {
  server = await startListening()
})
afterAll(() => server.stop())

const run = async (command: string, args: ReadonlyArray<string>) => {
  const env = {
    ...process.env,
    UMO_API_KEY: keys.alice,
    UMO_BASE_URL: server.baseUrl,
    PYTHONPATH: "clients/python"
  }
  const { stdout } = await promisify(execFile)(command, args, { env })
  return JSON.parse(stdout)
}

const expected = {
  captured: expect.stringMatching(/^[0-9a-f-]{36}$/),
  proof_valid: true,
  proven_offline: true,
  forgotten: true,
  receipt_verified: true
}

describe("client examples", () => {
  it("examples/client.ts captures, finds, proves offline and forgets", async () => {
    const out = await run(process.execPath, ["node_modules/tsx/dist/cli.mjs", "examples/client.ts"])
    expect(out).toMatchObject(expected)
    expect(out.best_match.umo_id).toBe(out.captured)
    expect(out.entities).toContain("Ana/PERSON")
  })

  it("examples/client.py does the same with the Python client", async () => {
    const out = await run("python3", ["examples/client.py"])
    expect(out).toMatchObject(expected)
    expect(out.best_match.umo_id).toBe(out.captured)
  })
})
