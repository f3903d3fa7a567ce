/**
 * The server as a user starts it: `npm start` in the repository with PORT and the storage in the
 * environment, the API key read from what it prints on first start. Unlike
 * server/test/support/ServerProcess.ts (the sources through tsx, one process), this runs what
 * `npm start` runs (npm, a shell, node on server/dist), so the tree it measures is a user's.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { freePort, untilHealthy } from "../../../server/test/support/ServerProcess.js"
import { descendants, type ProcessFacts, processFacts } from "./ProcessTree.js"

export interface NpmServer {
  readonly baseUrl: string
  /** The npm process: the root of the tree to measure. */
  readonly pid: number
  /** The key printed on first start (`umo_…`), or undefined when the store already had one. */
  readonly printedKey: string | undefined
  /** From spawning npm to the first healthy `GET /health`. */
  readonly healthyMs: number
  readonly spawnedAt: number
  /** The server's node process now (undefined once it has exited). */
  readonly serverNode: () => ProcessFacts | undefined
  /** SIGTERM to the server's node (a clean shutdown), then waits for npm to exit. */
  readonly stop: () => Promise<void>
  readonly output: () => string
}

const keyPattern = /umo_[0-9A-Za-z]{40}/

/** Builds the packages (`npm run build`): what `npm start` runs is server/dist. */
export const buildPackages = (root: string) => {
  const build = spawnSync("npm", ["run", "build"], { cwd: root, encoding: "utf8", maxBuffer: 2 ** 26 })
  if (build.status !== 0)
    throw new Error(`npm run build failed:\n${build.stdout.slice(-3000)}${build.stderr.slice(-3000)}`)
}

export const startNpmServer = async (
  root: string,
  env: Readonly<Record<string, string>>
): Promise<NpmServer> => {
  const port = await freePort()
  const spawnedAt = performance.now()
  let output = ""
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: root,
    env: {
      // A DATABASE_URL of the caller's would pick PostgreSQL for a PGlite stage.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "DATABASE_URL")),
      PORT: String(port),
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const pid = child.pid!
  const baseUrl = `http://127.0.0.1:${port}`

  /** The server's node: the tree's leaf running server/dist/main.js (npm and its shell only wait for it). */
  const serverNode = () =>
    descendants(pid)
      .map(processFacts)
      .find((p) => p?.command.includes("server/dist/main.js"))

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    // The server's node shuts down on SIGTERM; npm and its shell then exit with it. Anything still
    // there after 30 s is killed.
    const node = serverNode()
    if (node !== undefined) process.kill(node.pid, "SIGTERM")
    const timeout = setTimeout(() => {
      for (const p of descendants(pid).reverse()) process.kill(p, "SIGKILL")
    }, 30_000)
    await exited
    clearTimeout(timeout)
  }

  if (!(await untilHealthy(baseUrl, child, () => output, "npm start"))) {
    await stop()
    throw new Error(`npm start was not healthy in 180 s:\n${output}`)
  }
  return {
    baseUrl,
    pid,
    printedKey: keyPattern.exec(output)?.[0],
    healthyMs: Math.round(performance.now() - spawnedAt),
    spawnedAt,
    serverNode,
    stop,
    output: () => output
  }
}

/** POSTs JSON with the key; the body and the `Server-Timing` header. Fails on an error status. */
export const call = async (baseUrl: string, key: string, path: string, body: unknown) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 500)}`)
  return { body: JSON.parse(text) as unknown, timing: response.headers.get("server-timing") ?? "" }
}

/** The search index's figures in `GET /health` (see server/src/api/SystemApi.ts). */
export interface IndexHealth {
  readonly serving: number
  readonly loading: number
  readonly memories: number
  readonly held_mb: number
  readonly budget_mb: number
  readonly evictions: number
}

export const indexHealth = async (baseUrl: string): Promise<IndexHealth | undefined> =>
  ((await (await fetch(`${baseUrl}/health`)).json()) as { index?: IndexHealth }).index

/**
 * Polls `GET /health` every half second until the index serves an account holding `memories`
 * and loads nothing: ms from spawning npm, or null when nothing loads for 30 s. The server
 * preloads at start the accounts it holds then; one made since (the at-rest stage's) loads on
 * its first search, so the first time nothing loads one search is made, as a user's would be.
 * An account too large for `UMO_INDEX_MEMORY_MB` is never loaded: the database serves it.
 */
export const untilIndexServes = async (
  server: NpmServer,
  key: string,
  memories: number,
  deadlineMs: number
) => {
  const deadline = performance.now() + deadlineMs
  let idleSince: number | undefined
  let searched = false
  // A server that dies meanwhile (a request reset, refused) is reported with what it printed last.
  const orDied = <A>(request: Promise<A>) =>
    request.catch((cause: unknown) => {
      throw new Error(
        `the server stopped answering while its index loaded: ${String(cause)}\n${server.output().slice(-6_000)}`,
        {
          cause
        }
      )
    })
  for (;;) {
    const index = await orDied(indexHealth(server.baseUrl))
    if (index === undefined)
      throw new Error("GET /health has no `index`: a server from before the index's budget")
    if (index.serving >= 1 && index.loading === 0 && index.memories >= memories)
      return Math.round(performance.now() - server.spawnedAt)
    idleSince = index.loading === 0 ? (idleSince ?? performance.now()) : undefined
    const idleMs = idleSince === undefined ? 0 : performance.now() - idleSince
    if (idleSince !== undefined && !searched) {
      await orDied(call(server.baseUrl, key, "/v1/search", { query: "what did they talk about" }))
      searched = true
      idleSince = undefined
    }
    if (idleMs > 30_000 || performance.now() > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}
