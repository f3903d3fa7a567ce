/**
 * Starts the real server (`server/src/main.ts`) as its own process on a free port, with a fresh
 * data directory, and stops or kills it: benchmarks measure, and replica and fault tests exercise,
 * what a user of `npm start` gets.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Waits until `GET /health` answers 200: true, or false after 180 s; fails at once when the
 * process exits (with what it printed). Each probe is bounded: an answer that never comes (a port another
 * test's process took between freePort and the bind, a process stuck in its teardown) must not
 * stall the loop, which is what notices that the server exited.
 */
export const untilHealthy = async (
  baseUrl: string,
  child: ChildProcess,
  output: () => string,
  name: string
): Promise<boolean> => {
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output()}`)
    const healthy = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.ok,
      () => false
    )
    if (healthy) return true
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return false
}

/** A port nothing listens on now (the operating system's choice). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0))
    })
  })

export interface LiveServer {
  readonly baseUrl: string
  readonly dataDir: string
  /** From spawning the process to its first healthy answer. */
  readonly startupMs: number
  /** The server's resident memory now, in MB (Linux /proc). */
  readonly rssMb: () => number
  /** SIGTERM, then waits for the exit; a temporary data directory is removed. */
  readonly stop: () => Promise<void>
  /** SIGKILL (no shutdown at all), then waits for the exit; the data directory is kept. */
  readonly kill: () => Promise<void>
  /** What the process printed last (up to 4,000 characters, or all of it with `keepOutput`). */
  readonly output: () => string
}

/** Where the server keeps its data: a fresh temporary directory, unless given (and then kept). */
export interface StartOptions {
  readonly dataDir?: string
  /** Keep everything the process prints, not only the end (for tests that read its logs). */
  readonly keepOutput?: boolean
}

/** `keys` maps API keys to account names; `env` adds or overrides settings (embedder, weights …). */
export const startServer = async (
  root: string,
  keys: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string>> = {},
  options: StartOptions = {}
): Promise<LiveServer> => {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "umo-bench-"))
  const spawned = performance.now()
  const port = await freePort()
  let output = ""
  const kept = options.keepOutput ? Number.POSITIVE_INFINITY : 4000
  const child: ChildProcess = spawn(
    process.execPath,
    // `--import tsx` keeps the server in this one process, so its pid (and memory) is the server's.
    ["--import", "tsx", "server/src/main.ts"],
    {
      cwd: root,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "DATABASE_URL")),
        PORT: String(port),
        HOST: "127.0.0.1",
        UMO_DATA_DIR: dataDir,
        UMO_API_KEYS: Object.entries(keys)
          .map(([key, account]) => `${key}=${account}`)
          .join(","),
        UMO_RATE_LIMIT_PER_MINUTE: "100000000",
        ...env
      },
      stdio: ["ignore", "pipe", "pipe"]
    }
  )
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-kept)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const baseUrl = `http://127.0.0.1:${port}`
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill(name)
    await exited
  }
  const stop = async () => {
    await signal("SIGTERM")
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
  }
  const kill = () => signal("SIGKILL")
  const rssMb = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
  }
  if (!(await untilHealthy(baseUrl, child, () => output, "the server"))) {
    await stop()
    throw new Error(`the server did not become healthy in 180 s:\n${output}`)
  }
  return {
    baseUrl,
    dataDir,
    startupMs: Math.round(performance.now() - spawned),
    rssMb,
    stop,
    kill,
    output: () => output
  }
}

/**
 * The warning and error lines each server printed, the last 40 (for a test that failed: what the
 * servers saw is often the cause, as "could not read the idempotency key: … timed out" was).
 */
export const warningLines = (servers: ReadonlyArray<LiveServer>): string =>
  servers
    .map((server, i) => {
      const warned = server
        .output()
        .split("\n")
        .filter((line) => /WARN|ERROR|Error|error/.test(line))
      return `server ${i}: ${warned.length} warning lines, the last 40:\n${warned.slice(-40).join("\n")}`
    })
    .join("\n")
