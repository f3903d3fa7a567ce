// Runs the `umo` command on a Node >= 22.19 when the one it was started with is older (Node 20 on
// many machines): the way scripts/ensure-node.sh does it for a checkout, in plain JavaScript that
// any Node runs, for wherever the package is installed. Node's official build comes from the npm
// registry (node-<os>-<cpu>, pinned below) into a cache, once:
//   UMO_NODE_CACHE, else the checkout's .cache/node (where ensure-node.sh puts it), else
//   $XDG_CACHE_HOME/umo/node (~/.cache/umo/node).
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The Node fetched when the running one is too old; the same as scripts/ensure-node.sh's. */
export const version = "24.21.0"

/** Whether a Node version (`process.versions.node`) is one UMO runs on: 22.19 or newer. */
export const newEnough = (node = process.versions.node) => {
  const [major = 0, minor = 0] = node.split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 19)
}

const checkout = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** Where the fetched Node is kept (see the top of this file). */
export const cacheDir = (env = process.env) => {
  if (env.UMO_NODE_CACHE) return env.UMO_NODE_CACHE
  if (existsSync(join(checkout, "scripts", "ensure-node.sh"))) return join(checkout, ".cache", "node")
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "umo", "node")
}

/** The registry package of Node's build for this machine, or undefined where there is none. */
const platformPackage = () => {
  const os = { linux: "linux", darwin: "darwin" }[process.platform]
  const cpu = { x64: "x64", arm64: "arm64" }[process.arch]
  return os && cpu ? `node-${os}-${cpu}` : undefined
}

const installedVersion = (dir) => {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version
  } catch {
    return undefined
  }
}

/**
 * The path of a Node >= 22.19: the one fetched before, or fetched now with npm (a line on stderr
 * says so first). Throws, saying what to install, when there is no build for this machine or npm
 * cannot fetch it.
 */
export const newerNode = (env = process.env) => {
  const pkg = platformPackage()
  if (pkg === undefined)
    throw new Error(
      `UMO needs Node 22.19 or newer, this is Node ${process.versions.node}, and none can be fetched for ${process.platform} ${process.arch}: install Node 24`
    )
  const cache = cacheDir(env)
  const installed = join(cache, "node_modules", pkg)
  const bin = join(installed, "bin", "node")
  if (existsSync(bin) && installedVersion(installed) === version) return bin
  process.stderr.write(
    `umo: this is Node ${process.versions.node} and UMO needs 22.19 or newer: fetching Node ${version} (${pkg}, about 50 MB) from the npm registry into ${cache} (once)\n`
  )
  // Installed beside the cache and moved into place, so that two commands starting at once never
  // see half a Node; --ignore-scripts: the package's postinstall only relinks the binary.
  mkdirSync(cache, { recursive: true })
  const staging = mkdtempSync(join(cache, ".fetching-"))
  try {
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        staging,
        "--no-save",
        "--no-package-lock",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        `${pkg}@${version}`
      ],
      { stdio: ["ignore", "inherit", "inherit"] }
    )
    // Only the binary is used: the C headers (67 MB, for compiling addons) are left out.
    rmSync(join(staging, "node_modules", pkg, "include"), { recursive: true, force: true })
    rmSync(installed, { recursive: true, force: true })
    mkdirSync(dirname(installed), { recursive: true })
    renameSync(join(staging, "node_modules", pkg), installed)
  } catch (error) {
    if (!(existsSync(bin) && installedVersion(installed) === version))
      throw new Error(
        `could not fetch Node ${version} with npm (${error instanceof Error ? error.message : error}); install Node 22.19 or newer`
      )
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return bin
}

/**
 * Runs this process's script again on a Node >= 22.19, with the same arguments, standard streams
 * (an MCP host's pipes included) and environment, and ends as it ends: its exit code, or the
 * signal that stopped it. Signals sent to this process are passed on.
 */
export const runOnNewerNode = () => {
  if (process.env.UMO_NEWER_NODE) {
    process.stderr.write(
      `umo: UMO needs Node 22.19 or newer, and ${process.execPath} is ${process.versions.node}\n`
    )
    process.exit(1)
  }
  let node
  try {
    node = newerNode()
  } catch (error) {
    process.stderr.write(`umo: ${error instanceof Error ? error.message : error}\n`)
    process.exit(1)
  }
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, UMO_NEWER_NODE: "1" }
  })
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"]
  const forward = (signal) => child.kill(signal)
  for (const signal of signals) process.on(signal, forward)
  child.on("error", (error) => {
    process.stderr.write(`umo: could not start ${error.path ?? "node"}: ${error.message}\n`)
    process.exit(1)
  })
  child.on("exit", (code, signal) => {
    for (const s of signals) process.off(s, forward)
    if (signal !== null) process.kill(process.pid, signal)
    else process.exit(code ?? 1)
  })
}
