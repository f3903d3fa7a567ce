/**
 * Resident memory of a process and everything under it, read from Linux's /proc: a server started
 * with `npm start` is npm, a shell and node, and what a machine pays is their sum.
 */
import { readdirSync, readFileSync } from "node:fs"

/** One process of the tree as /proc/PID/status gives it, in kB; its threads by name. */
export interface ProcessFacts {
  readonly pid: number
  readonly ppid: number
  readonly command: string
  readonly rss_kb: number
  /** Its peak resident memory so far (VmHWM). */
  readonly peak_rss_kb: number
  readonly rss_anon_kb: number
  readonly rss_file_kb: number
  readonly rss_shmem_kb: number
  readonly threads: number
  /** How many threads bear each name (/proc/PID/task/TID/comm): where the threads come from. */
  readonly thread_names: Record<string, number>
}

export interface TreeSample {
  /** VmRSS summed over every process of the tree. */
  readonly rss_kb: number
  readonly threads: number
  readonly processes: ReadonlyArray<ProcessFacts>
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined // the process (or thread) ended between the listing and the read
  }
}

const field = (status: string, name: string) =>
  Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)

/** The process's facts, or undefined once it has exited. */
export const processFacts = (pid: number): ProcessFacts | undefined => {
  const status = read(`/proc/${pid}/status`)
  if (status === undefined) return undefined
  const thread_names: Record<string, number> = {}
  for (const tid of readdirSync(`/proc/${pid}/task`, { withFileTypes: false }).map(String)) {
    const name = read(`/proc/${pid}/task/${tid}/comm`)?.trim()
    if (name !== undefined) thread_names[name] = (thread_names[name] ?? 0) + 1
  }
  return {
    pid,
    ppid: field(status, "PPid"),
    // The arguments (NUL-separated), not `Name`, which is "node" for npm and the server alike.
    command: (read(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" "),
    rss_kb: field(status, "VmRSS"),
    peak_rss_kb: field(status, "VmHWM"),
    rss_anon_kb: field(status, "RssAnon"),
    rss_file_kb: field(status, "RssFile"),
    rss_shmem_kb: field(status, "RssShmem"),
    threads: field(status, "Threads"),
    thread_names
  }
}

/** Every process's parent, read once: the tree is walked from it (children of children). */
const parents = (): Map<number, number> => {
  const byPid = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = read(`/proc/${entry}/stat`)
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = stat === undefined ? undefined : Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    if (ppid !== undefined) byPid.set(Number(entry), ppid)
  }
  return byPid
}

/** The pids of `root` and all its descendants, root first. */
export const descendants = (root: number): Array<number> => {
  const byPid = parents()
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of byPid) if (ppid === tree[i]) tree.push(pid)
  return tree
}

/** The tree under `root` now: its processes and their sums. */
export const sampleTree = (root: number): TreeSample => {
  const processes = descendants(root)
    .map(processFacts)
    .filter((p): p is ProcessFacts => p !== undefined)
  return {
    rss_kb: processes.reduce((sum, p) => sum + p.rss_kb, 0),
    threads: processes.reduce((sum, p) => sum + p.threads, 0),
    processes
  }
}

/** kB to MB, whole. */
export const mb = (kb: number) => Math.round(kb / 1024)
