/**
 * A Citus cluster of a test's own — a coordinator and workers, each a real PostgreSQL server with
 * Citus 13.2.2 and pgvector — built by `scripts/citus-cluster.sh` in a directory unique to this
 * process. Citus is built from a fetched snapshot of citusdata/citus, never part of the repository:
 * where it is not installed, `citusUnavailable()` gives the script's one-line reason, and the
 * tests skip with it.
 */
import { execFile, execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)
const root = join(import.meta.dirname, "..", "..", "..")
const script = join(root, "scripts", "citus-cluster.sh")

/** Why the Citus tests cannot run here (the script's own line), or undefined when they can. */
export const citusUnavailable = (): string | undefined => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`
  try {
    execFileSync("bash", [script, "check"], { stdio: ["ignore", "ignore", "pipe"] })
    return undefined
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? "").trim()
    return said.length > 0 ? said : String(error)
  }
}

export interface CitusCluster {
  readonly url: string
  readonly coordinatorPort: number
  readonly workerPorts: ReadonlyArray<number>
  /** The coordinator's server log. */
  readonly log: string
  /** One value (first column of the first row) of `sql` on a node, through psql. */
  readonly query: (port: number, sql: string) => Promise<string>
  /** `citus-cluster.sh COMMAND …` on this cluster; its stdout. */
  readonly script: (...args: ReadonlyArray<string>) => Promise<string>
  readonly down: () => Promise<void>
}

/** The value of a `NAME=value` line a cluster script printed (its way of telling ports and URLs). */
export const field = (output: string, name: string) => {
  const line = output.split("\n").find((l) => l.startsWith(`${name}=`))
  if (line === undefined) throw new Error(`the cluster script printed no ${name}:\n${output}`)
  return line.slice(name.length + 1)
}

/** Starts a coordinator and `workers` workers (fsync off: a test cluster), database `umo`. */
export const citusCluster = async (workers = 2): Promise<CitusCluster> => {
  const env = { ...process.env, UMO_CITUS_CLUSTER_DIR: join(tmpdir(), `umo-citus-${process.pid}`) }
  const scriptOf = async (...args: ReadonlyArray<string>) =>
    (await run("bash", [script, ...args], { env, maxBuffer: 1 << 24 })).stdout
  const output = await scriptOf("up", "--workers", String(workers), "--no-fsync")
  const coordinatorPort = Number(field(output, "COORDINATOR_PORT"))
  const query = async (port: number, sql: string) =>
    (
      await run(
        "psql",
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port)].concat([
          "-U",
          "postgres",
          "-d",
          "umo",
          "-c",
          sql
        ])
      )
    ).stdout.trim()
  return {
    url: field(output, "COORDINATOR_URL"),
    coordinatorPort,
    workerPorts: field(output, "WORKER_PORTS").split(",").map(Number),
    log: field(output, "COORDINATOR_LOG"),
    query,
    script: scriptOf,
    // UMO_CITUS_KEEP=1 leaves the cluster and its logs for a look after a failure.
    down: async () => {
      if (process.env.UMO_CITUS_KEEP !== "1") await scriptOf("down")
    }
  }
}

/**
 * The statements the coordinator ran as more than one task (on several shards) since `offset` of
 * its log, once `citus.multi_task_query_log_level = 'log'` and `log_min_error_statement = 'log'`
 * are set: Citus logs such a query, and PostgreSQL the statement after it.
 */
export const multiShardStatements = (log: string, offset: number): ReadonlyArray<string> => {
  const lines = readFileSync(log, "utf8").slice(offset).split("\n")
  const found: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.includes("multi-task query about to be executed")) continue
    const statement = lines.slice(i + 1, i + 4).find((l) => l.includes("STATEMENT:"))
    const at = statement === undefined ? -1 : lines.indexOf(statement, i + 1)
    // A statement runs on over several lines; it ends where the next log entry starts.
    const rest: Array<string> = []
    for (let j = at + 1; at >= 0 && j < lines.length && /^\s/.test(lines[j]!); j++)
      rest.push(lines[j]!.trim())
    found.push([statement?.replace(/^.*STATEMENT:\s*/, "") ?? "(no statement logged)", ...rest].join(" "))
  }
  return found
}
