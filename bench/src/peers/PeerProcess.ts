/**
 * A peer driver (bench/peers/*_driver.py) as a child process speaking JSON lines: one request a
 * line on its stdin, one answer a line on its stdout (see bench/peers/driver_common.py). One request
 * at a time, so every call is timed alike.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createInterface } from "node:readline"

export interface PeerProcess {
  readonly pid: number
  /** Sends `{cmd, ...fields}` and resolves with the answer's fields; rejects on `ok: false`. */
  readonly request: <A = Record<string, unknown>>(cmd: string, fields?: Record<string, unknown>) => Promise<A>
  /** Resident memory of the process now, in MB (Linux /proc). */
  readonly rssMb: () => number
  /** What the process printed on stderr last (up to 8,000 characters). */
  readonly errors: () => string
  readonly close: () => Promise<void>
}

export const spawnPeer = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {}
): PeerProcess => {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000)
  })
  const pending = new Map<
    number,
    { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }
  >()
  let nextId = 1
  let exited: Error | undefined
  const lines = createInterface({ input: child.stdout! })
  lines.on("line", (line) => {
    if (line.trim() === "") return
    let answer: Record<string, unknown>
    try {
      answer = JSON.parse(line) as Record<string, unknown>
    } catch {
      return
    }
    const waiting = pending.get(answer.id as number)
    if (!waiting) return
    pending.delete(answer.id as number)
    if (answer.ok === true) waiting.resolve(answer)
    else
      waiting.reject(
        new Error(`${command} ${args.join(" ")}: ${String(answer.error)}\n${stderr.slice(-2000)}`)
      )
  })
  const closed = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = new Error(`the peer process exited (${code ?? signal}):\n${stderr.slice(-4000)}`)
      for (const waiting of pending.values()) waiting.reject(exited)
      pending.clear()
      resolve()
    })
  )
  child.once("error", (error) => {
    exited = error
    for (const waiting of pending.values()) waiting.reject(error)
    pending.clear()
  })
  const request = <A>(cmd: string, fields: Record<string, unknown> = {}) =>
    new Promise<A>((resolve, reject) => {
      if (exited) return reject(exited)
      const id = nextId++
      pending.set(id, { resolve: resolve as (v: Record<string, unknown>) => void, reject })
      child.stdin!.write(`${JSON.stringify({ id, cmd, ...fields })}\n`)
    })
  return {
    pid: child.pid ?? -1,
    request,
    rssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
      return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 102.4) / 10
    },
    errors: () => stderr,
    close: async () => {
      if (!exited) {
        await request("close").catch(() => undefined)
        child.stdin?.end()
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      await closed
      clearTimeout(timer)
    }
  }
}
