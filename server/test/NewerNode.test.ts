import { execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: plain JavaScript without declarations (it must run on any Node)
import { cacheDir, newEnough, version } from "../bin/newer-node.js"

const root = join(import.meta.dirname, "../..")
const work = mkdtempSync(join(tmpdir(), "umo-newer-node-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

// The machine's PATH and its `node`, without the newer Node scripts/with-node.sh put first.
const machinePath = (process.env["PATH"] ?? "")
  .split(delimiter)
  .filter((dir) => !dir.startsWith(join(root, ".cache")))
  .join(delimiter)
const machineNode = (() => {
  try {
    return execFileSync("node", ["-p", "process.versions.node"], {
      encoding: "utf8",
      env: { ...process.env, PATH: machinePath }
    }).trim()
  } catch {
    return undefined
  }
})()
const oldNodeHere = machineNode !== undefined && !newEnough(machineNode)

// An `npm` that "installs" the package it is given by linking the Node running these tests, and
// notes its arguments: the fetch is exercised without the registry.
const fakeBin = join(work, "fake-bin")
mkdirSync(fakeBin)
writeFileSync(
  join(fakeBin, "npm"),
  `#!/bin/sh
echo "$@" >> "${join(work, "npm-calls")}"
prefix=""; last=""
while [ $# -gt 0 ]; do
  case "$1" in --prefix) prefix="$2"; shift ;; esac
  last="$1"; shift
done
pkg="\${last%@*}"; ver="\${last##*@}"
mkdir -p "$prefix/node_modules/$pkg/bin" "$prefix/node_modules/$pkg/include"
printf '{"name":"%s","version":"%s"}' "$pkg" "$ver" > "$prefix/node_modules/$pkg/package.json"
ln -s "${process.execPath}" "$prefix/node_modules/$pkg/bin/node"
`
)
chmodSync(join(fakeBin, "npm"), 0o755)

const umoBin = join(root, "server", "bin", "umo.js")
const cache = join(work, "node-cache")
const env = (extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: `${fakeBin}${delimiter}${machinePath}`,
  UMO_NODE_CACHE: cache,
  UMO_EMBEDDER: "use-lite",
  DATABASE_URL: "",
  ...extra
})

/** `node bin/umo.js ARGS` on the machine's Node, to its end. */
const umo = (args: Array<string>, extra: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("node", [umoBin, ...args], { env: env(extra) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("newer-node.js", () => {
  it("knows which Node versions UMO runs on", () => {
    expect(newEnough("20.20.2")).toBe(false)
    expect(newEnough("22.18.0")).toBe(false)
    expect(newEnough("22.19.0")).toBe(true)
    expect(newEnough("24.21.0")).toBe(true)
    expect(readFileSync(join(root, "scripts", "ensure-node.sh"), "utf8")).toContain(`version="${version}"`)
  })

  it("keeps the fetched Node in UMO_NODE_CACHE, a checkout's .cache/node, else the per-user cache", () => {
    expect(cacheDir({ UMO_NODE_CACHE: "/opt/n" })).toBe("/opt/n")
    expect(cacheDir({})).toBe(join(root, ".cache", "node"))
  })
})

describe.skipIf(!oldNodeHere)(`npx umo on the machine's Node (${machineNode})`, () => {
  it("fetches a newer Node once, with a line saying so, and runs itself on it", async () => {
    const first = await umo(["--version"])
    expect(first.stderr).toContain(`fetching Node ${version}`)
    expect(first.stdout).toContain("0.1.0")
    expect(first.code).toBe(0)
    const calls = readFileSync(join(work, "npm-calls"), "utf8")
    expect(calls).toContain("--ignore-scripts")
    expect(calls).toContain(`node-${process.platform}-${process.arch}@${version}`)
    // In place, without the C headers, and found the next time without asking npm.
    const installed = join(cache, "node_modules", `node-${process.platform}-${process.arch}`)
    expect(existsSync(join(installed, "bin", "node"))).toBe(true)
    expect(existsSync(join(installed, "include"))).toBe(false)
    const second = await umo(["--version"])
    expect(second.stderr).not.toContain("fetching")
    expect(second.code).toBe(0)
    expect(readFileSync(join(work, "npm-calls"), "utf8")).toBe(calls)
  }, 60_000)

  it("ends with the exit code of the command it ran", async () => {
    const refused = await umo(["keys", "revoke", "umo_nosuchkey"], { UMO_DATA_DIR: join(work, "data") })
    expect(refused.stderr).toContain("no active key")
    expect(refused.code).not.toBe(0)
  }, 60_000)

  it("passes a SIGTERM on to the command, which stops", async () => {
    const child = spawn("node", [umoBin, "mcp", "--data-dir", join(work, "mcp-data")], {
      env: env(),
      stdio: ["pipe", "pipe", "pipe"]
    })
    const exited = new Promise((resolve) => child.on("exit", resolve))
    // Started once it answers an MCP request over the same pipes.
    const answered = new Promise<string>((resolve) => child.stdout.once("data", (d) => resolve(String(d))))
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`
    )
    expect(await answered).toContain('"serverInfo"')
    child.kill("SIGTERM")
    await exited
    // The command it started on the newer Node is gone too (its arguments name the data directory).
    const running = spawn("pgrep", ["-f", join(work, "mcp-data")])
    expect(await new Promise((resolve) => running.on("close", resolve))).toBe(1)
  }, 60_000)
})
