/**
 * A real PostgreSQL primary and streaming hot standby of a test's own, built by
 * `scripts/pg-cluster.sh` under a prefix and in a directory unique to this process (so nothing
 * else on the machine — the shared cluster on :5432, another test run's pair — is touched), on two
 * ports the operating system had free. Pairs that a killed run of this file left behind (their
 * process gone) are dropped first.
 *
 * `patroniCluster` builds the same pair with `scripts/patroni-cluster.sh` instead: two Patroni
 * members and an etcd of their own, which promote the standby by themselves when the primary's
 * node fails (`failover()` then only waits for it).
 */
import { execFile, execFileSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { field } from "../../../plugins/test/storage/CitusCluster.js"
import { freePort } from "./ServerProcess.js"

const run = promisify(execFile)

/** Why the cluster tests cannot run here, or undefined when they can. */
export const clusterUnavailable = (): string | undefined => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`
  if (!existsSync("/usr/bin/pg_createcluster"))
    return "pg_createcluster is missing (Debian's postgresql-common; apt-get install postgresql)"
  const versions = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql").filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
    : []
  if (versions.length === 0) return "no PostgreSQL server in /usr/lib/postgresql"
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]!
  if (!existsSync(`/usr/share/postgresql/${newest}/extension/vector.control`))
    return `pgvector is not installed for PostgreSQL ${newest} (scripts/provision-postgres.sh builds it)`
  if (process.getuid?.() !== 0) {
    try {
      execFileSync("sudo", ["-n", "true"], { stdio: "ignore" })
    } catch {
      return "not root, and no password-less sudo (pg-cluster.sh writes /etc/postgresql)"
    }
  }
  return undefined
}

export interface PgCluster {
  readonly primaryPort: number
  readonly standbyPort: number
  /** `postgres://postgres@127.0.0.1:<port>/umo` */
  readonly primaryUrl: string
  readonly standbyUrl: string
  /** Both servers in one URL, the primary first: the form a deployment gives for failover. */
  readonly bothUrl: string
  /** `pg-cluster.sh COMMAND …` (or `patroni-cluster.sh COMMAND …`) on this pair; its stdout. */
  readonly script: (...args: ReadonlyArray<string>) => Promise<string>
  /**
   * After `stop-primary`: the standby becomes the primary, and this returns once it accepts writes —
   * `pg-cluster.sh promote`, or, under Patroni, waiting (up to 60 s) until Patroni has promoted it.
   */
  readonly failover: () => Promise<void>
  /** One value (first column of the first row) from `sql` on a server, through psql. */
  readonly query: (port: number, sql: string) => Promise<string>
  /** Stops and drops both servers (idempotent). */
  readonly down: () => Promise<void>
}

const root = join(import.meta.dirname, "..", "..", "..")
const scriptPath = join(root, "scripts", "pg-cluster.sh")
const patroniScriptPath = join(root, "scripts", "patroni-cluster.sh")
const prefixPattern = /^umo_t(\d+)[a-z]_(?:primary|standby)$/
const patroniDirPattern = /^umo-patroni-cluster-umo_t(\d+)[a-z]$/

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const scriptEnv = (prefix: string, dir: string) => ({
  ...process.env,
  UMO_PG_CLUSTER_PREFIX: prefix,
  UMO_PG_CLUSTER_DIR: dir,
  UMO_PATRONI_DIR: dir,
  // Debian's pg_* tools live in /usr/bin, runuser in /usr/sbin.
  PATH: `${process.env["PATH"] ?? ""}:/usr/sbin:/usr/bin:/sbin:/bin`
})

/**
 * Why the Patroni cluster cannot run here (`patroni-cluster.sh check`'s one line: no patroni or
 * etcd, not root …), or undefined when it can.
 */
export const patroniUnavailable = (): string | undefined => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`
  try {
    execFileSync("bash", [patroniScriptPath, "check"], {
      env: scriptEnv("umo", join(tmpdir(), "umo-patroni-cluster-check")),
      stdio: ["ignore", "ignore", "pipe"]
    })
    return undefined
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? "").trim()
    return said.replace(/^patroni-cluster: /, "") || (error as Error).message
  }
}

/** Drops the pairs of this helper whose test process is gone (a run killed before its afterAll). */
const dropLeftovers = async () => {
  const names = existsSync("/etc/postgresql")
    ? readdirSync("/etc/postgresql").flatMap((v) =>
        existsSync(`/etc/postgresql/${v}`) ? readdirSync(`/etc/postgresql/${v}`) : []
      )
    : []
  const prefixes = new Set(
    names.flatMap((name) => {
      const match = prefixPattern.exec(name)
      return match && !alive(Number(match[1])) ? [name.replace(/_(?:primary|standby)$/, "")] : []
    })
  )
  for (const prefix of prefixes)
    await run("bash", [scriptPath, "down"], {
      env: scriptEnv(prefix, join(tmpdir(), `umo-pg-cluster-${prefix}`))
    }).catch(() => undefined)
}

/** The same for Patroni clusters: their directories in the temporary directory name the process. */
const dropPatroniLeftovers = async () => {
  for (const name of readdirSync(tmpdir())) {
    const match = patroniDirPattern.exec(name)
    if (match && !alive(Number(match[1])))
      await run("bash", [patroniScriptPath, "down"], {
        env: scriptEnv("umo", join(tmpdir(), name))
      }).catch(() => undefined)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Builds a pair: `pg-cluster.sh up` with `options` (`--sync`, `--no-fsync`) under the prefix
 * `umo_t<pid><tag>` (`tag`: one letter, several pairs per process). A port taken between the
 * choice and the start makes `up` fail: it is tried again on other ports, three times.
 */
export const pgCluster = (tag: string, options: ReadonlyArray<string> = []): Promise<PgCluster> =>
  build(false, tag, options)

/**
 * Builds a pair that Patroni manages: `patroni-cluster.sh up` with `options` (`--sync`: Patroni's
 * synchronous_mode, `--no-fsync`), in a directory named after this process and `tag`. Its
 * `stop-primary` kills the leader's Patroni and PostgreSQL (the node fails); `failover()` waits
 * for the other member to be promoted.
 */
export const patroniCluster = (tag: string, options: ReadonlyArray<string> = []): Promise<PgCluster> =>
  build(true, tag, options)

const build = async (patroni: boolean, tag: string, options: ReadonlyArray<string>): Promise<PgCluster> => {
  if (!/^[a-z]$/.test(tag)) throw new Error("tag: one lowercase letter")
  await (patroni ? dropPatroniLeftovers() : dropLeftovers())
  const prefix = `umo_t${process.pid}${tag}`
  const dir = join(tmpdir(), `${patroni ? "umo-patroni-cluster" : "umo-pg-cluster"}-${prefix}`)
  const env = scriptEnv(prefix, dir)
  const path = patroni ? patroniScriptPath : scriptPath
  const script = async (...args: ReadonlyArray<string>) =>
    (await run("bash", [path, ...args], { env, maxBuffer: 1 << 20 })).stdout
  const down = async () => {
    await script("down").catch(() => undefined)
  }
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const [p, s] = [await freePort(), await freePort()]
    if (p === s) continue
    try {
      const printed = await script("up", ...options, "--primary-port", String(p), "--standby-port", String(s))
      const primaryPort = Number(field(printed, "PRIMARY_PORT"))
      const standbyPort = Number(field(printed, "STANDBY_PORT"))
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
            ]),
            { env }
          )
        ).stdout.trim()
      // Patroni promotes by itself: until the standby says it is out of recovery.
      const promotedByPatroni = async () => {
        const deadline = performance.now() + 60_000
        while ((await query(standbyPort, "SELECT NOT pg_is_in_recovery()").catch(() => "")) !== "t") {
          if (performance.now() > deadline) throw new Error("Patroni did not promote the standby in 60 s")
          await sleep(100)
        }
      }
      return {
        primaryPort,
        standbyPort,
        primaryUrl: field(printed, "PRIMARY_URL"),
        standbyUrl: field(printed, "STANDBY_URL"),
        bothUrl: `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/umo`,
        script,
        failover: patroni
          ? promotedByPatroni
          : async () => {
              await script("promote")
            },
        query,
        down
      }
    } catch (error) {
      lastError = error
      await down()
    }
  }
  throw lastError
}
