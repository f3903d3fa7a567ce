// Packs @umo/core, @umo/plugins and @umo/client the way they would be published, installs the
// tarballs into a throwaway app outside the workspace, type-checks a TypeScript consumer against
// the shipped declarations (DOM typings, no @types/node: the client must not need Node) and runs
// it. Fails loudly if an exports map, the declarations or the runtime dependencies are incomplete,
// or if the client gained a runtime dependency.
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
  for (const workspace of ["@umo/core", "@umo/plugins", "@umo/client"]) {
    run("npm", ["pack", "--silent", "--workspace", workspace, "--pack-destination", work], root)
  }
  const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"))
  const core = tarballs.find((f) => f.startsWith("umo-core-"))
  const plugins = tarballs.find((f) => f.startsWith("umo-plugins-"))
  const client = tarballs.find((f) => f.startsWith("umo-client-"))
  if (!core || !plugins || !client) throw new Error(`expected three tarballs, got ${tarballs.join(", ")}`)

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
        "@umo/client": `file:../${client}`
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
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: []
      },
      files: ["consumer.ts"]
    })
  )
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], app)
  const clientManifest = JSON.parse(readFileSync(join(app, "node_modules/@umo/client/package.json"), "utf8"))
  if (Object.keys(clientManifest.dependencies ?? {}).length > 0)
    throw new Error(
      `@umo/client must have no runtime dependencies: ${JSON.stringify(clientManifest.dependencies)}`
    )
  // Type-check the consumer against the declarations the tarballs ship, with the workspace's tsc.
  run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], app)
  const output = run(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "consumer.ts"], app)
  console.log(
    `packaging: ${core}, ${plugins} and ${client} install, type-check and run outside the workspace`
  )
  console.log(`packaging: ${output.trim()}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
