import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { AccountStore, sha256Hex } from "@umo/core"
import { Database, SqlAccountStore } from "@umo/plugins"
import { Effect, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const dataDir = mkdtempSync(join(tmpdir(), "umo-cli-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const umo = async (...args: Array<string>) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "server/src/cli.ts", ...args],
    {
      env: { ...process.env, UMO_DATA_DIR: dataDir, DATABASE_URL: "" }
    }
  )
  return stdout
}

const lookUp = (key: string) =>
  Effect.runPromise(
    Effect.flatMap(AccountStore, (accounts) => accounts.findByKeyHash(sha256Hex(key))).pipe(
      Effect.provide(
        SqlAccountStore.layer.pipe(Layer.provide(Database.pglite({ dataDir: join(dataDir, "pglite") })))
      )
    )
  )

describe("npm run umo -- keys", () => {
  it("creates a key, lists it by id only, and revokes it", async () => {
    const created = await umo("keys", "create", "--account", "acme")
    const key = created.match(/umo_[0-9A-Za-z]{40}/)?.[0]
    expect(key).toBeDefined()
    const found = await lookUp(key!)
    expect(Option.getOrThrow(found).account.name).toBe("acme")

    const listed = await umo("keys", "list")
    const keyId = key!.slice(0, 12)
    expect(listed).toContain(keyId)
    expect(listed).toContain("acme")
    expect(listed).not.toContain(key!)

    expect(await umo("keys", "revoke", keyId)).toContain(`Revoked ${keyId}`)
    expect(Option.isNone(await lookUp(key!))).toBe(true)
    await expect(umo("keys", "revoke", keyId)).rejects.toThrow(/no active key/)
  }, 120_000)
})
