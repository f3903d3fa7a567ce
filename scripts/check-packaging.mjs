// Installs the tarballs `npm run pack` makes into a throwaway app outside the repository, the way a
// user building on UMO would, with the machine's `node` first on PATH (Node 20 here and in CI), and
// checks from there:
//   - two TypeScript consumers type-check against the shipped declarations: the pipeline and the
//     client with no Node typings (the client must not need Node), and the memory service;
//   - the JS client, on the machine's Node, against a server started with `npx umo serve` (which
//     runs itself again on Node >= 22.19, from the per-user cache);
//   - `openMemory` in-process with the default embedder, its models found in the per-user cache
//     (~/.cache/umo/models, here under a scratch XDG_CACHE_HOME), whatever the working directory;
//   - with no models there, `openMemory` and `npx umo serve` refuse, naming `npx umo-fetch-models`,
//     and create nothing on disk;
//   - the integrations against that server: the JS ones from their tarballs, on the newer Node
//     (scripts/packaging/integrations.mjs), and the Python client and integrations pip-installed
//     from the checkout's folders into a fresh virtualenv (scripts/packaging/integrations.py);
//   - `npx umo mcp` over stdio (initialize, tools/list, a capture) and `npx umo export`;
//   - importing @umo/memory on a Node older than 22.19 fails with the Node it needs, never a
//     SyntaxError; `npx umo-fetch-models` runs its shipped script.
// Fails loudly if an exports map, a bin, the declarations or the runtime dependencies are
// incomplete, or if the client gained a runtime dependency. Nothing is downloaded but the
// packages' dependencies, from npm's cache when it has them: the Node >= 22.19 is the one
// scripts/ensure-node.sh installed, the models the checkout's.
import { execFileSync, spawn } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const started = Date.now()
const work = mkdtempSync(join(tmpdir(), "umo-packaging-"))
const say = (line) => console.log(`packaging: [${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`)

// The machine's PATH: scripts/with-node.sh put the Node >= 22.19 of .cache/node first; taken away,
// `node` and `npx` are the machine's (Node 20 here). The newer Node stays available as the cache
// the `umo` command looks in (see `cache` below), as if it had fetched it before.
const machinePath = process.env.PATH.split(delimiter)
  .filter((dir) => !dir.startsWith(join(root, ".cache")))
  .join(delimiter)
const machineNode = execFileSync("node", ["-p", "process.versions.node"], {
  encoding: "utf8",
  env: { ...process.env, PATH: machinePath }
}).trim()
const newerNode = process.execPath

const app = join(work, "app")
// The per-user caches of the app's user: Node 24 and the models, from the checkout (symlinks).
const cache = join(work, "cache")
const emptyCache = join(work, "empty-cache")
mkdirSync(join(cache, "umo"), { recursive: true })
mkdirSync(join(emptyCache, "umo"), { recursive: true })
symlinkSync(join(root, "models"), join(cache, "umo", "models"))
symlinkSync(join(root, ".cache", "node"), join(cache, "umo", "node"))
symlinkSync(join(root, ".cache", "node"), join(emptyCache, "umo", "node"))
const userEnv = (cacheHome = cache) => {
  const env = { ...process.env, PATH: machinePath, XDG_CACHE_HOME: cacheHome }
  for (const name of [
    "UMO_MODELS_DIR",
    "UMO_NODE_CACHE",
    "UMO_EMBEDDER",
    "UMO_DATA_DIR",
    "DATABASE_URL",
    "UMO_CONFIG"
  ])
    delete env[name]
  for (const name of Object.keys(env)) if (name.startsWith("npm_")) delete env[name]
  return env
}

const run = (command, args, options = {}) =>
  execFileSync(command, args, {
    cwd: app,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: userEnv(),
    ...options
  })

/** Runs a command to its end: its exit code, output and error output (never throws). */
const runToEnd = (command, args, options = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: app, env: userEnv(), ...options })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

const check = (condition, what, detail) => {
  if (!condition) throw new Error(`${what}${detail === undefined ? "" : `:\n${detail}`}`)
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** `npx umo mcp` over stdio: sends JSON-RPC lines and collects the answers by id. */
const mcpSession = async (dataDir) => {
  const child = spawn("npx", ["umo", "mcp", "--data-dir", dataDir, "--account", "me"], {
    cwd: app,
    env: userEnv(),
    stdio: ["pipe", "pipe", "pipe"]
  })
  let buffer = ""
  let stderr = ""
  const answers = new Map()
  const waiting = new Map()
  child.stderr.on("data", (d) => (stderr += d))
  child.stdout.on("data", (d) => {
    buffer += d
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at).trim()
      buffer = buffer.slice(at + 1)
      if (line === "") continue
      const message = JSON.parse(line)
      answers.set(message.id, message)
      waiting.get(message.id)?.(message)
    }
  })
  const exited = new Promise((resolve) => child.on("close", (code) => resolve(code)))
  const request = (id, method, params) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`umo mcp: no answer to ${method} in 60 s\n${stderr}`)),
        60_000
      )
      waiting.set(id, (message) => {
        clearTimeout(timer)
        resolve(message)
      })
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
    })
  const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`)
  const close = async () => {
    child.stdin.end()
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 30_000))])
    if (code === "timeout") child.kill("SIGTERM")
    return { code, stderr }
  }
  return { request, notify, close }
}

/** Runs a command to its end and returns its output; throws with its output when it fails. */
const runChecked = async (command, args, options = {}) => {
  const done = await runToEnd(command, args, options)
  check(
    done.code === 0,
    `${command} ${args.join(" ")} failed (${done.code ?? done.signal})`,
    `${done.stdout}${done.stderr}`
  )
  return done.stdout.trim()
}

/** The server on the machine's Node (`npx umo serve` runs itself again on the newer one), and the JS client against it. */
const serverAndClient = async () => {
  const port = await freePort()
  const env = { ...userEnv(), PORT: String(port), UMO_DATA_DIR: join(app, "data-server") }
  // In a process group of its own, stopped as a terminal's Ctrl-C stops it: npx, the `umo`
  // command and the server it started on the newer Node alike.
  const child = spawn("npx", ["umo", "serve"], {
    cwd: app,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  })
  servers.add(child)
  let output = ""
  child.stdout.on("data", (d) => (output += d))
  child.stderr.on("data", (d) => (output += d))
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })))
  const deadline = Date.now() + 120_000
  let key
  while (key === undefined && Date.now() < deadline && child.exitCode === null) {
    key = output.match(/^\s+(umo_[A-Za-z0-9_-]+)\s*$/m)?.[1]
    if (key === undefined) await sleep(200)
  }
  check(key !== undefined, "`npx umo serve` printed no API key", output)
  let healthy = false
  while (!healthy && Date.now() < deadline && child.exitCode === null) {
    healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false
    )
    if (!healthy) await sleep(200)
  }
  check(healthy, "`npx umo serve` never answered /health", output)
  const client = await runChecked("node", ["client.mjs"], {
    env: { ...userEnv(), UMO_BASE_URL: `http://127.0.0.1:${port}`, UMO_API_KEY: key }
  })
  say(`the JS client on the machine's Node against \`npx umo serve\`: ${client}`)
  const served = { ...userEnv(), UMO_BASE_URL: `http://127.0.0.1:${port}`, UMO_API_KEY: key }
  const js = await runChecked(newerNode, ["integrations.mjs"], { env: served })
  say(`@umo/langchain and @umo/vercel-ai against \`npx umo serve\`: ${js}`)
  const python = await runChecked(join(await pythonPackages, "bin", "python"), ["integrations.py"], {
    env: served
  })
  say(`umo-client, umo-langchain and umo-langgraph (pip) against \`npx umo serve\`: ${python}`)
  process.kill(-child.pid, "SIGINT")
  const stopped = await exited
  servers.delete(child)
  const stillServing = await fetch(`http://127.0.0.1:${port}/health`).then(
    () => true,
    () => false
  )
  check(
    (stopped.code === 0 || stopped.code === 130 || stopped.signal === "SIGINT") && !stillServing,
    "`npx umo serve` did not stop on SIGINT",
    `${JSON.stringify(stopped)}\n${output}`
  )
}

/** The packages in-process on the newer Node; what the machine's Node and a missing model get. */
const library = async () => {
  const tsx = join(root, "node_modules/tsx/dist/cli.mjs")
  say(`the pipeline and the client: ${await runChecked(newerNode, [tsx, "consumer.ts"])}`)
  const inProcess = await runChecked(newerNode, [tsx, "memory.ts"])
  say(`openMemory in-process, the models from the per-user cache: ${inProcess}`)

  // No models in the per-user cache: refused before anything is created, naming the command.
  const refused = JSON.parse(await runChecked(newerNode, ["refused.mjs"], { env: userEnv(emptyCache) }))
  check(
    refused.message.includes("npx umo-fetch-models") && !refused.created,
    "openMemory without models must refuse, naming npx umo-fetch-models, before creating its data directory",
    JSON.stringify(refused)
  )
  const refusedServer = await runToEnd("npx", ["umo", "serve"], {
    env: {
      ...userEnv(emptyCache),
      PORT: String(await freePort()),
      UMO_DATA_DIR: join(app, "data-refused-server")
    }
  })
  check(
    refusedServer.code !== 0 &&
      `${refusedServer.stdout}${refusedServer.stderr}`.includes("npx umo-fetch-models") &&
      !existsSync(join(app, "data-refused-server")),
    "`umo serve` without models must refuse, naming npx umo-fetch-models, before creating its data directory",
    `${refusedServer.code}\n${refusedServer.stdout}${refusedServer.stderr}`
  )
  say("without models, openMemory and `npx umo serve` refuse, name `npx umo-fetch-models` and create nothing")

  // A library import on the machine's Node, when it is too old: the Node it needs, no SyntaxError.
  const [major, minor] = machineNode.split(".").map(Number)
  if (major < 22 || (major === 22 && minor < 19)) {
    const old = await runToEnd("node", ["old-node.mjs"])
    const said = old.stderr.match(
      /Error: (UMO's packages need Node 22\.19 or newer, and this is Node [\d.]+ .*)/
    )?.[1]
    check(
      old.code !== 0 && said !== undefined && !old.stderr.includes("SyntaxError"),
      `importing @umo/memory on Node ${machineNode} must say which Node it needs`,
      old.stderr
    )
    say(`importing @umo/memory on Node ${machineNode}: ${said}`)
  }

  // The models command runs its shipped script (everything is there: nothing is fetched).
  const fetched = await runToEnd("npx", ["umo-fetch-models"])
  check(
    fetched.code === 0 &&
      fetched.stderr.includes(join(cache, "umo", "models")) &&
      fetched.stderr.includes("already in"),
    "`npx umo-fetch-models` with the models in place",
    fetched.stderr
  )
  say("`npx umo-fetch-models` finds the per-user cache and its models")
}

/** `npx umo mcp` over stdio (initialize, tools/list, a capture), then `npx umo export` of it. */
const mcpAndExport = async () => {
  const dataDir = join(app, "data-mcp")
  const mcp = await mcpSession(dataDir)
  const init = await mcp.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "packaging-check", version: "1.0.0" }
  })
  check(init.result?.serverInfo?.name === "umo", "umo mcp: initialize", JSON.stringify(init))
  mcp.notify("notifications/initialized")
  const tools = await mcp.request(2, "tools/list", {})
  const names = tools.result?.tools?.map((t) => t.name) ?? []
  check(
    names.includes("capture_memory") && names.includes("search_memories"),
    "umo mcp: tools/list",
    JSON.stringify(tools)
  )
  const captured = await mcp.request(3, "tools/call", {
    name: "capture_memory",
    arguments: { content: "Hedy Lamarr co-invented frequency hopping." }
  })
  const umoId = captured.result?.structuredContent?.umo_id
  check(
    captured.result?.isError !== true && typeof umoId === "string",
    "umo mcp: capture_memory",
    JSON.stringify(captured)
  )
  const closed = await mcp.close()
  check(closed.code === 0, "umo mcp did not end with its input", JSON.stringify(closed))
  say(`\`npx umo mcp\`: initialize, ${names.length} tools, capture_memory → ${umoId}`)
  const exportFile = join(app, "me.jsonl")
  await runChecked("npx", ["umo", "export", "--data-dir", dataDir, "--account", "me", "--out", exportFile])
  const lines = readFileSync(exportFile, "utf8").trim().split("\n")
  check(
    lines.some((line) => line.includes(umoId)),
    "`npx umo export` did not write the memory captured over MCP",
    lines.join("\n")
  )
  say(`\`npx umo export\`: ${lines.length} lines, the memory captured over MCP among them`)
}

/** A fresh virtualenv with the Python client and integrations pip-installed from the checkout's
 * folders (their pinned libraries from PyPI): its directory. */
const installPythonPackages = async () => {
  const venv = join(work, "python")
  await runChecked("python3", ["-m", "venv", venv])
  const folders = ["clients/python", "integrations/langchain-python", "integrations/langgraph"]
  await runChecked(
    join(venv, "bin", "pip"),
    ["install", "--quiet", "--disable-pip-version-check", ...folders.map((f) => join(root, f))],
    { env: { ...userEnv(), PIP_NO_CACHE_DIR: "1" } }
  )
  return venv
}
let pythonPackages

/** The servers started and not yet stopped (killed, with their process group, if the check fails). */
const servers = new Set()
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
try {
  say(`the machine's Node is ${machineNode}; packing with Node ${process.versions.node}`)
  // `node scripts/check-packaging.mjs DIR` checks the tarballs `npm run pack` already made in DIR.
  const packed = process.argv[2] === undefined ? join(work, "packed") : resolve(process.argv[2])
  if (process.argv[2] === undefined)
    execFileSync(newerNode, [join(root, "scripts", "pack.mjs"), packed], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"]
    })
  const tarballs = readdirSync(packed).filter((f) => /^umo-.*\.tgz$/.test(f))
  const sizes = tarballs.map((f) => `${f} ${(readFileSync(join(packed, f)).length / 1024).toFixed(0)} KB`)
  say(`packed ${sizes.join(", ")}`)

  mkdirSync(app)
  // Meanwhile: pip installs while npm does.
  pythonPackages = installPythonPackages()
  pythonPackages.catch(() => {}) // awaited (and reported) where it is used
  for (const file of ["integrations.mjs", "integrations.py"])
    writeFileSync(join(app, file), readFileSync(join(root, "scripts", "packaging", file)))
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify(
      {
        name: "umo-packaging-check",
        private: true,
        type: "module",
        dependencies: Object.fromEntries(
          tarballs.map((f) => [
            `@umo/${f.replace(/^umo-/, "").replace(/-\d.*$/, "")}`,
            `file:${join(packed, f)}`
          ])
        ),
        // onnxruntime-node's install script would fetch GPU extras from outside the npm registry.
        allowScripts: { "onnxruntime-node": false, protobufjs: true, usearch: true }
      },
      null,
      2
    )
  )
  writeFileSync(join(app, ".npmrc"), "fund=false\naudit=false\n")
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"])
  say(`installed the ${tarballs.length} tarballs in ${app} with the machine's npm`)
  const clientManifest = JSON.parse(readFileSync(join(app, "node_modules/@umo/client/package.json"), "utf8"))
  check(
    Object.keys(clientManifest.dependencies ?? {}).length === 0,
    `@umo/client must have no runtime dependencies: ${JSON.stringify(clientManifest.dependencies)}`
  )

  writeFileSync(
    join(app, "consumer.ts"),
    `import { APIError, UMOClient, verifyProof } from "@umo/client"
import { Pipeline, type Umo } from "@umo/core"
import { defaultPlugins, UseLiteEmbedder } from "@umo/plugins"
import { normalizeText } from "@umo/plugins/nlp"
import { Effect } from "effect"

const text = normalizeText("  Ada Lovelace worked with Charles Babbage in London.  ")
const program = Pipeline.make(defaultPlugins()).process({ content: text })
const umo: Umo = await Effect.runPromise(program.pipe(Effect.provide(UseLiteEmbedder.layer())))
const people = umo.entities.filter((e) => e.type === "PERSON").map((e) => e.text)
if (!people.includes("Ada Lovelace")) throw new Error("no PERSON Ada Lovelace in " + JSON.stringify(umo.entities))
const offline = await new UMOClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" }).health().catch((e: unknown) => e)
if (!(offline instanceof APIError) || typeof verifyProof !== "function") throw new Error("client: " + String(offline))
console.log(JSON.stringify({ people, triples: umo.svo_triples.length, quality: umo.quality_score }))
`
  )
  // The memory service with the default embedder: its models come from the per-user cache.
  writeFileSync(
    join(app, "memory.ts"),
    `import { NotFoundError, verifyProof, verifyReceipt } from "@umo/client"
import { openMemory } from "@umo/memory"

const text = "Grace Hopper found a moth in the Mark II in 1947."
const umo = await openMemory({ dataDir: "data-in-process", account: "packaging" })
try {
  const keys = await umo.signingKeys()
  const captured = await umo.capture(text, { source: "packaging" })
  const [found] = await umo.ask("What did Grace Hopper find?")
  const answer = await umo.answer("What did Grace Hopper find?")
  const proven = await verifyProof(await umo.verify(captured.umoId), keys, text)
  const forgotten = await umo.forget(captured.umoId)
  const receipt = await verifyReceipt(forgotten.receipt, keys)
  const gone = await umo.get(captured.umoId).catch((e: unknown) => e)
  if (found?.umoId !== captured.umoId || answer.citations[0]?.umoId !== captured.umoId || !proven)
    throw new Error("in-process memory: " + JSON.stringify({ found, answer: answer.raw, proven }))
  if (receipt.umo_id !== captured.umoId || !(gone instanceof NotFoundError)) throw new Error("forget: " + String(gone))
  console.log(JSON.stringify({ answer: answer.method, proven, forgotten: forgotten.forgotten }))
} finally {
  await umo.close()
}
`
  )
  // Plain JavaScript on the machine's Node: the client against the server.
  writeFileSync(
    join(app, "client.mjs"),
    `import { UMOClient } from "@umo/client"

const umo = new UMOClient()
const health = await umo.health()
const captured = await umo.capture("Katherine Johnson computed the trajectory of Apollo 11.", { userId: "kj" })
const [found] = await umo.ask("Who computed the trajectory?", { userId: "kj" })
if (found?.umoId !== captured.umoId) throw new Error("client: " + JSON.stringify({ captured: captured.umoId, found }))
console.log(JSON.stringify({ node: process.versions.node, status: health.status, found: found.umoId === captured.umoId }))
`
  )
  writeFileSync(
    join(app, "refused.mjs"),
    `import { existsSync } from "node:fs"
import { openMemory } from "@umo/memory"

const error = await openMemory({ dataDir: "data-refused" }).then(() => undefined, (e) => e)
console.log(JSON.stringify({ message: String(error?.message), created: existsSync("data-refused") }))
`
  )
  writeFileSync(join(app, "old-node.mjs"), `await import("@umo/memory")\n`)

  /** A strict TypeScript project of one file, with `options` added (which typings it may use). */
  const project = (file, options) =>
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        ...options
      },
      files: [file]
    })
  // The client must type-check with no Node typings; the memory service runs on Node.
  writeFileSync(join(app, "tsconfig.json"), project("consumer.ts", { types: [] }))
  writeFileSync(
    join(app, "tsconfig.memory.json"),
    project("memory.ts", { lib: ["ES2023", "DOM"], types: ["node"] })
  )
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  run(newerNode, [tsc, "-p", "tsconfig.json"])
  run(newerNode, [tsc, "-p", "tsconfig.memory.json", "--typeRoots", join(root, "node_modules/@types")])
  say("the consumers type-check against the shipped declarations")

  // Three at once: the server and the client, the library in-process, MCP and export.
  await Promise.all([serverAndClient(), library(), mcpAndExport()])
  say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
} finally {
  for (const child of servers) {
    try {
      process.kill(-child.pid, "SIGKILL")
    } catch {
      // It had ended.
    }
  }
  rmSync(work, { recursive: true, force: true })
}
