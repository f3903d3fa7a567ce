/**
 * A PostgreSQL server of a test's own: a fresh cluster (initdb) of the machine's PostgreSQL in a
 * temporary directory, on a port of the test's choosing, that it may stop and start — as a database
 * restart looks to the service — without touching the server other test files share. pgvector
 * comes from the same installation (CI builds it into it).
 */
import { execFile, execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

/** The newest installed PostgreSQL's programs (Debian keeps them per version), if any. */
export const postgresBin = (): string | undefined => {
  const base = "/usr/lib/postgresql"
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length > 0 ? join(base, versions[0]!, "bin") : undefined
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** Fast shutdown: sessions are ended, as in a restart for maintenance. */
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  /** Stops the server and removes its directory. */
  readonly remove: () => Promise<void>
}

/**
 * Creates and starts the cluster on `port`. Its programs run asynchronously, so a server in the
 * same process keeps serving (and failing) while the database stops and starts.
 */
export const privatePostgres = async (bin: string, port: number): Promise<PrivatePostgres> => {
  const dir = mkdtempSync(join(tmpdir(), "umo-pg-"))
  const data = join(dir, "data")
  // PostgreSQL refuses to run as root; as root, it runs as the installation's postgres user.
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString())
    chownSync(dir, id("-u"), id("-g"))
  }
  // util-linux's runuser is in /usr/sbin, which a PATH made for an unprivileged user may lack.
  const runuser = ["/usr/sbin/runuser", "/sbin/runuser"].find((path) => existsSync(path)) ?? "runuser"
  const run = async (program: string, args: ReadonlyArray<string>) => {
    const [file, all] = asRoot
      ? [runuser, ["-u", "postgres", "--", join(bin, program), ...args]]
      : [join(bin, program), [...args]]
    await promisify(execFile)(file, all)
  }
  await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  // pg_ctl waits 60 s by default: on a loaded two-core machine (the whole suite beside it) a start
  // once took longer and failed the run. Five minutes leaves only a server that cannot start failing.
  const start = () =>
    run("pg_ctl", ["-D", data, "-o", options, "-w", "-t", "300", "-l", join(dir, "log"), "start"])
  const stop = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "300", "stop"])
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    remove: async () => {
      await stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
