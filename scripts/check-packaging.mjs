// Packs @umo/core, @umo/plugins, @umo/client and @umo/memory the way they would be published,
// installs the tarballs into a throwaway app outside the workspace, type-checks two TypeScript
// consumers against the shipped declarations and runs them: one of the pipeline and the client
// (DOM typings, no @types/node: the client must not need Node), and one of the memory service
// in-process (openMemory: capture, ask, answer, verify offline, forget, close). Fails loudly if an
// exports map, the declarations or the runtime dependencies are incomplete, or if the client
// gained a runtime dependency.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const work = mkdtempSync(join(tmpdir(), "umo-packaging-"))
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" })

try {
  for (const workspace of ["@umo/core", "@umo/plugins", "@umo/client", "@umo/memory"]) {
    run("npm", ["pack", "--silent", "--workspace", workspace, "--pack-destination", work], root)
  }
  const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"))
  const core = tarballs.find((f) => f.startsWith("umo-core-"))
  const plugins = tarballs.find((f) => f.startsWith("umo-plugins-"))
  const client = tarballs.find((f) => f.startsWith("umo-client-"))
  const memory = tarballs.find((f) => f.startsWith("umo-memory-"))
  if (!core || !plugins || !client || !memory)
    throw new Error(`expected four tarballs, got ${tarballs.join(", ")}`)

  const app = join(work, "app")
  run("mkdir", ["-p", app], work)
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "umo-packaging-check",
      private: true,
      type: "module",
      dependencies: {
        "@umo/core": `file:../${core}`,
        "@umo/plugins": `file:../${plugins}`,
        "@umo/client": `file:../${client}`,
        "@umo/memory": `file:../${memory}`
      }
    })
  )
  writeFileSync(join(app, ".npmrc"), "onnxruntime-node-install=skip\nfund=false\naudit=false\n")
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
  writeFileSync(
    join(app, "memory.ts"),
    `import { NotFoundError, verifyProof, verifyReceipt } from "@umo/client"
import { openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"

const text = "Grace Hopper found a moth in the Mark II in 1947."
const umo = await openMemory({ dataDir: "data", account: "packaging", embedder: UseLiteEmbedder.layer() })
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
  console.log(JSON.stringify({ captured: captured.umoId.length, answer: answer.method, proven, forgotten: forgotten.forgotten }))
} finally {
  await umo.close()
}
`
  )
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
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], app)
  const clientManifest = JSON.parse(readFileSync(join(app, "node_modules/@umo/client/package.json"), "utf8"))
  if (Object.keys(clientManifest.dependencies ?? {}).length > 0)
    throw new Error(
      `@umo/client must have no runtime dependencies: ${JSON.stringify(clientManifest.dependencies)}`
    )
  // Type-check the consumer against the declarations the tarballs ship, with the workspace's tsc.
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  run(process.execPath, [tsc, "-p", "tsconfig.json"], app)
  // The memory service runs on Node: its consumer type-checks with Node's typings (from the workspace).
  run(
    process.execPath,
    [tsc, "-p", "tsconfig.memory.json", "--typeRoots", join(root, "node_modules/@types")],
    app
  )
  const tsx = join(root, "node_modules/tsx/dist/cli.mjs")
  const output = run(process.execPath, [tsx, "consumer.ts"], app)
  const inProcess = run(process.execPath, [tsx, "memory.ts"], app)
  console.log(
    `packaging: ${core}, ${plugins}, ${client} and ${memory} install, type-check and run outside the workspace`
  )
  console.log(`packaging: ${output.trim()}`)
  console.log(`packaging: openMemory ${inProcess.trim()}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
