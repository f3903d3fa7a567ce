// Runs the README's tour, as written, against a fresh server, and fails on an error or a changed
// status (issue 49, item 7). `npm run test:readme`, or by hand, on Node >= 22.19:
//
//   bash scripts/with-node.sh node scripts/check-readme.mjs [--readme FILE] [--keep] [--verbose] [--keep-going] [--build]
//
// What is run: every ```bash (or ```sh) block between `<!-- tour -->` and `<!-- /tour -->` in the
// README (there may be several such regions), in order, in one bash process with
// `set -Eeuo pipefail`, so a variable set in one block is there in the next, as in a terminal.
// Other blocks (`npm install`, `npm start`, JSON, code) are not run.
//
// The tour's one convention: every command that runs curl ends with a comment giving the HTTP
// status it answers, `# → 200` (or `# -> 200`; several, `# → 200 404`, for several calls in
// order). A command spans several lines only by ending them with a backslash (a loop or a function
// is written on one line). A curl command without a status, or a status without curl, fails the
// check before anything runs. Each curl's status is read from its response headers (curl is wrapped by a shell
// function that adds `-D`; the README's own options are left alone) and compared with the
// comment; a command that exits non-zero (curl unable to connect, python3 failing to read an
// answer, ...) fails the check too, naming its README line.
//
// The server: `npm start` from the checkout, with a temporary UMO_DATA_DIR, a free PORT on
// 127.0.0.1, and none of the caller's DATABASE_URL / UMO_API_KEYS / UMO_SIGNING_KEY / UMO_CONFIG.
// The API key is the one it prints on first start (server/src/keys/Bootstrap.ts). In the tour,
// the line `export UMO_API_KEY=…` becomes that key and `http://127.0.0.1:8787` the server's
// address: the only two rewrites. At the end the server's process group (npm and its children,
// started detached by this script) is stopped, and the temporary directory removed (`--keep`
// keeps it and prints where). `--verbose` prints every answer; `--keep-going` reports a failing
// command and goes on with the next (no `set -e`), to list every failing line in one run. `npm
// start` runs the build (`*/dist`), not the sources: the check warns when a package's sources are
// newer than their build, and `--build` runs `npm run build` first.
import { spawn, spawnSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

const args = process.argv.slice(2)
const flag = (name) => args.includes(name)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback
}
const readmePath = resolve(root, option("--readme", "README.md"))
const readmeName = relative(process.cwd(), readmePath) || readmePath
const keep = flag("--keep")
const verbose = flag("--verbose")
const keepGoing = flag("--keep-going")
const build = flag("--build")
const startTimeoutMs = Number(option("--start-timeout", "180")) * 1000
const tourTimeoutMs = Number(option("--tour-timeout", "600")) * 1000

/** The default address the README shows; replaced by the fresh server's. */
const defaultBase = /http:\/\/(?:127\.0\.0\.1|localhost):8787/g
/** The status comment that ends every command running curl. */
const statusComment = /\s#\s*(?:→|->)\s*((?:\d{3}[\s,]*)+)(?:\D.*)?$/
const runsCurl = /(?:^|[\s;&|(`{])curl\s/

/**
 * The tour's commands, from the README's text: each with its first and last line (1-based) and,
 * for a command running curl, the statuses its comment expects; and the problems found with the
 * convention (nothing runs when there is one).
 */
export const parseTour = (text) => {
  const lines = text.split("\n")
  const commands = []
  const problems = []
  let inTour = false
  let regions = 0
  let fence = null // null: outside a fence; "run": a bash block of the tour; "skip": another fence
  let pending = null
  const flush = () => {
    if (pending === null) return
    const last = pending.lines[pending.lines.length - 1]
    const match = statusComment.exec(last)
    const code = [...pending.lines.slice(0, -1), match ? last.slice(0, match.index) : last].join("\n")
    const expected = match
      ? match[1]
          .trim()
          .split(/[\s,]+/)
          .map(Number)
      : []
    const curl = runsCurl.test(code)
    if (curl && expected.length === 0)
      problems.push(
        `${readmeName}:${pending.end}: a command running curl must end with its status, e.g. "# → 200"`
      )
    if (!curl && expected.length > 0)
      problems.push(`${readmeName}:${pending.end}: a status comment on a command that runs no curl`)
    commands.push({ start: pending.start, end: pending.end, lines: pending.lines, expected })
    pending = null
  }
  lines.forEach((line, i) => {
    const n = i + 1
    if (fence === null && /^<!--\s*tour\s*-->\s*$/.test(line)) {
      if (inTour) problems.push(`${readmeName}:${n}: <!-- tour --> inside the tour`)
      inTour = true
      regions++
      return
    }
    if (fence === null && /^<!--\s*\/tour\s*-->\s*$/.test(line)) {
      if (!inTour) problems.push(`${readmeName}:${n}: <!-- /tour --> without <!-- tour -->`)
      inTour = false
      return
    }
    if (!inTour) return
    if (fence === null) {
      const open = /^```\s*([\w-]*)/.exec(line)
      if (open) fence = open[1] === "bash" || open[1] === "sh" ? "run" : "skip"
      return
    }
    if (/^```\s*$/.test(line)) {
      if (pending !== null)
        problems.push(`${readmeName}:${pending.start}: a command continued past its block's end`)
      flush()
      fence = null
      return
    }
    if (fence !== "run") return
    if (pending === null) {
      if (/^\s*(#.*)?$/.test(line)) {
        commands.push({ start: n, end: n, lines: [line], expected: [] })
        return
      }
      pending = { start: n, end: n, lines: [] }
    }
    pending.lines.push(line)
    pending.end = n
    if (!/\\\s*$/.test(line)) flush()
  })
  if (inTour) problems.push(`${readmeName}: <!-- tour --> is never closed`)
  if (fence !== null) problems.push(`${readmeName}: a code block in the tour is never closed`)
  if (regions === 0) problems.push(`${readmeName}: no <!-- tour --> … <!-- /tour --> region`)
  if (!commands.some((c) => c.expected.length > 0)) problems.push(`${readmeName}: the tour runs no curl`)
  if (!commands.some((c) => /^\s*export\s+UMO_API_KEY=/.test(c.lines[0])))
    problems.push(`${readmeName}: the tour never sets UMO_API_KEY (export UMO_API_KEY=…)`)
  return { commands, problems }
}

/**
 * The bash script that runs the tour's commands with their checks, against `base` with `key`.
 * Each command is preceded by `__umo_at LINE [STATUS…]`, which also writes a marker line to stdout
 * (`@@umo-line LINE`, after a line break: curl's answers end without one) so the checker can
 * show what a failing command printed; a command running curl is followed by `__umo_check`. With `keepGoing`, a failure is reported and the tour goes on
 * (without `set -e`), to list every failing line at once; it still fails in the end.
 */
export const tourScript = (commands, { base, key, statusLog, progress, keepGoing = false }) => {
  const quote = (s) => `'${String(s).replaceAll("'", "'\\''")}'`
  // biome-ignore-start lint/suspicious/noTemplateCurlyInString: bash's ${…}, not a template
  const out = [
    keepGoing ? "set -Euo pipefail" : "set -Eeuo pipefail",
    `__umo_status_log=${quote(statusLog)}`,
    `__umo_readme=${quote(readmeName)}`,
    `__umo_keep_going=${keepGoing ? 1 : 0}`,
    "__umo_main=$BASHPID __umo_line=0 __umo_mark=0 __umo_want=() __umo_erred=0 __umo_failed=0",
    `exec 3>>${quote(progress)}`,
    // curl with -D to a file of its own: the status of each call, whatever the README's options.
    "curl() {",
    '  local headers rc=0; headers="$(mktemp)"',
    '  command curl -D "$headers" "$@" || rc=$?',
    '  awk \'/^HTTP\\//{s=$2} END{print (s=="" ? "000" : s)}\' "$headers" >> "$__umo_status_log"',
    '  rm -f "$headers"; return "$rc"',
    "}",
    "__umo_at() {",
    '  __umo_line="$1"; shift; __umo_want=("$@"); __umo_erred=0',
    '  __umo_mark="$(wc -l < "$__umo_status_log")"',
    "  printf '\\n@@umo-line %s\\n' \"$__umo_line\"",
    "}",
    // Empty when the statuses since __umo_at are the expected ones, else what differs.
    "__umo_mismatch() {",
    '  local got i w; mapfile -t got < <(tail -n +"$((__umo_mark + 1))" "$__umo_status_log")',
    '  [ "${#__umo_want[@]}" -gt 0 ] || return 0',
    '  if [ "${#got[@]}" -eq 0 ]; then echo "expected ${__umo_want[*]}, but no curl call answered"; return 0; fi',
    '  if [ "${#__umo_want[@]}" -gt 1 ] && [ "${#got[@]}" -ne "${#__umo_want[@]}" ]; then',
    '    echo "expected ${__umo_want[*]}, got ${got[*]}"; return 0',
    "  fi",
    '  for i in "${!got[@]}"; do',
    '    w="${__umo_want[$i]:-${__umo_want[-1]}}"',
    '    if [ "${got[$i]}" != "$w" ]; then echo "expected ${__umo_want[*]}, got ${got[*]}"; return 0; fi',
    "  done",
    "}",
    "__umo_fail() {",
    '  echo "FAIL $__umo_readme:$__umo_line: $1" >&3; __umo_failed=1',
    '  [ "$__umo_keep_going" = 1 ] || exit 1',
    "}",
    // Reported once, by the tour's own shell (not by the subshells of a pipeline or a $(…)).
    "__umo_on_err() {",
    '  [ "$BASHPID" = "$__umo_main" ] || return 0',
    '  local rc="$1" why; why="$(__umo_mismatch)"; __umo_erred=1',
    '  if [ -n "$why" ]; then __umo_fail "$why (and the command exited with status $rc)"',
    '  else __umo_fail "the command exited with status $rc"; fi',
    "}",
    "trap '__umo_on_err $?' ERR",
    "__umo_check() {",
    '  [ "$__umo_erred" = 0 ] || return 0',
    '  local why; why="$(__umo_mismatch)"',
    '  if [ -n "$why" ]; then __umo_fail "$why"; return 0; fi',
    '  echo "ok   $__umo_readme:$__umo_line: $(tail -n +"$((__umo_mark + 1))" "$__umo_status_log" | paste -sd " " -)" >&3',
    "}"
  ]
  // biome-ignore-end lint/suspicious/noTemplateCurlyInString: bash's ${…}, not a template

  for (const command of commands) {
    const lines = command.lines.map((line) => {
      if (/^\s*export\s+UMO_API_KEY=/.test(line)) return `export UMO_API_KEY=${quote(key)}`
      return line.replace(defaultBase, base)
    })
    if (lines.every((line) => /^\s*(#.*)?$/.test(line))) {
      out.push(...lines)
      continue
    }
    out.push(`__umo_at ${[command.start, ...command.expected].join(" ")}`, ...lines)
    if (command.expected.length > 0) out.push("__umo_check")
  }
  out.push('[ "$__umo_failed" = 0 ] && echo "done" >&3', 'exit "$__umo_failed"')
  return `${out.join("\n")}\n`
}

/** The newest modification time of the files under `dir` (0 when it does not exist). */
const newest = (dir) => {
  if (!existsSync(dir)) return 0
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return latest
}

/** The packages whose sources changed after their build: `npm start` runs the build (dist/). */
const staleBuilds = () =>
  ["core", "plugins", "clients/js", "memory", "mcp", "server"].filter(
    (p) => newest(join(root, p, "src")) > newest(join(root, p, "dist"))
  )

const freePort = () =>
  new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const main = async () => {
  const started = Date.now()
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1)
  const { commands, problems } = parseTour(readFileSync(readmePath, "utf8"))
  if (problems.length > 0) {
    for (const p of problems) console.error(p)
    console.error(
      `check-readme: the tour breaks its convention (${problems.length} problem(s)); nothing was run`
    )
    return 1
  }
  const calls = commands.filter((c) => c.expected.length > 0).length
  console.log(`check-readme: ${calls} curl commands in ${readmeName}'s tour`)
  if (build) {
    console.log("check-readme: npm run build")
    const built = spawnSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] })
    if (built.status !== 0) {
      console.error(`check-readme: npm run build failed (${built.status ?? built.signal})`)
      return 1
    }
  }
  const stale = staleBuilds()
  if (stale.length > 0)
    console.warn(
      `check-readme: warning: ${stale.map((p) => `${p}/src`).join(", ")} changed after the last build; ` +
        "npm start runs the build, so the tour runs the code as last built (npm run build, or --build)"
    )

  const work = mkdtempSync(join(tmpdir(), "umo-readme-"))
  const dataDir = join(work, "data")
  const tourDir = join(work, "tour")
  mkdirSync(tourDir)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", UMO_DATA_DIR: dataDir }
  for (const name of [
    "DATABASE_URL",
    "UMO_DATABASE_READ_URLS",
    "UMO_API_KEYS",
    "UMO_SIGNING_KEY",
    "UMO_CONFIG"
  ])
    delete env[name]

  let serverLog = ""
  const server = spawn("npm", ["start"], {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let exited = null
  server.on("exit", (code, signal) => {
    exited = { code, signal }
  })
  server.stdout.on("data", (d) => {
    serverLog += d
  })
  server.stderr.on("data", (d) => {
    serverLog += d
  })
  const stopServer = async () => {
    if (exited !== null || server.pid === undefined) return
    // The process group this script started (npm, its shell, node): nothing else.
    const signalGroup = (signal) => {
      try {
        process.kill(-server.pid, signal)
      } catch {}
    }
    signalGroup("SIGTERM")
    for (let i = 0; i < 100 && exited === null; i++) await sleep(100)
    if (exited === null) signalGroup("SIGKILL")
    for (let i = 0; i < 50 && exited === null; i++) await sleep(100)
  }
  const onSignal = () => {
    if (server.pid !== undefined && exited === null)
      try {
        process.kill(-server.pid, "SIGKILL")
      } catch {}
    if (!keep) rmSync(work, { recursive: true, force: true })
    process.exit(130)
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)

  // The last lines of a text, with the secret part of any API key in it cut (the key is a fresh
  // server's, but a log is no place for one).
  const tail = (text, n = 40) =>
    text
      .trimEnd()
      .split("\n")
      .slice(-n)
      .join("\n")
      .replace(/(umo_[0-9A-Za-z]{8})[0-9A-Za-z]{32}/g, "$1…")
  let status = 1
  try {
    // Healthy, with the key printed on first start.
    let key
    const deadline = Date.now() + startTimeoutMs
    for (;;) {
      key ??= /No API key existed[\s\S]*?(umo_[0-9A-Za-z]{40})/.exec(serverLog)?.[1]
      if (exited !== null)
        throw new Error(`npm start exited (${JSON.stringify(exited)}) before it was healthy`)
      if (Date.now() > deadline)
        throw new Error(`npm start was not healthy within ${startTimeoutMs / 1000} s`)
      const healthy = await fetch(`${base}/health`)
        .then((r) => r.status === 200)
        .catch(() => false)
      if (healthy && key !== undefined) break
      if (healthy && /Listening on/.test(serverLog) && key === undefined)
        throw new Error("the server is healthy but printed no API key on its first start")
      await sleep(250)
    }
    console.log(`check-readme: npm start healthy on ${base} after ${seconds()} s (data in ${dataDir})`)

    const statusLog = join(work, "statuses")
    const progress = join(work, "progress")
    const script = join(work, "tour.sh")
    writeFileSync(statusLog, "")
    writeFileSync(progress, "")
    writeFileSync(script, tourScript(commands, { base, key, statusLog, progress, keepGoing }))
    let tourOutput = ""
    const tour = spawn("bash", [script], {
      cwd: tourDir,
      env: { ...process.env, UMO_API_KEY: key, UMO: base, UMO_BASE_URL: base },
      stdio: ["ignore", "pipe", "pipe"]
    })
    tour.stdout.on("data", (d) => {
      tourOutput += d
      if (verbose) process.stdout.write(String(d).replace(/^@@umo-line (\d+)$/gm, `--- ${readmeName}:$1 ---`))
    })
    tour.stderr.on("data", (d) => {
      tourOutput += d
      if (verbose) process.stderr.write(d)
    })
    let shown = 0
    const showProgress = () => {
      const lines = readFileSync(progress, "utf8").split("\n")
      for (; shown < lines.length - 1; shown++) if (lines[shown] !== "done") console.log(`  ${lines[shown]}`)
    }
    const timer = setInterval(showProgress, 200)
    const code = await new Promise((r) => {
      const limit = setTimeout(() => {
        tour.kill("SIGKILL")
        console.error(`check-readme: the tour ran past ${tourTimeoutMs / 1000} s`)
      }, tourTimeoutMs)
      tour.on("exit", (c, s) => {
        clearTimeout(limit)
        r(c ?? s)
      })
    })
    clearInterval(timer)
    showProgress()
    const done = readFileSync(progress, "utf8").split("\n").includes("done")
    if (code === 0 && done) {
      status = 0
      console.log(`check-readme: the tour ran as written: ${calls} curl commands, ${seconds()} s in all`)
    } else {
      const failed = readFileSync(progress, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("FAIL"))
      console.error(
        `check-readme: the tour failed (bash exited with ${code}): ${failed.length} failing command(s)`
      )
      // What each failing command printed: its output runs from its marker to the next one.
      const outputOf = (line) => {
        const marker = `\n@@umo-line ${line}\n`
        const at = tourOutput.lastIndexOf(marker)
        if (at < 0) return "(no output)"
        const rest = tourOutput.slice(at + marker.length)
        const next = rest.search(/^@@umo-line \d+$/m)
        const text = (next < 0 ? rest : rest.slice(0, next)).trim()
        return text.length > 1500 ? `${text.slice(0, 1500)}…` : text || "(no output)"
      }
      for (const line of failed) {
        const n = /:(\d+): /.exec(line)?.[1]
        console.error(`${readmeName}:${n ?? "?"} printed: ${n === undefined ? "?" : outputOf(n)}`)
      }
      if (failed.length === 0) console.error(tail(tourOutput.replace(/^@@umo-line \d+$/gm, "")))
      console.error("--- the server's last output ---")
      console.error(tail(serverLog, 10))
    }
  } catch (error) {
    console.error(`check-readme: ${error.message}`)
    console.error("--- the server's output ---")
    console.error(tail(serverLog))
  } finally {
    await stopServer()
    if (exited === null) console.error(`check-readme: npm start (pid ${server.pid}) did not stop`)
    if (keep) console.log(`check-readme: kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
  console.log(`check-readme: ${status === 0 ? "passed" : "FAILED"} in ${seconds()} s`)
  return status
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main()
}
