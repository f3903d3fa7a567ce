// Packs @umo/core and @umo/plugins the way they would be published, installs the tarballs into
// a throwaway app outside the workspace, type-checks a TypeScript consumer against the shipped
// declarations and runs it. Fails loudly if the exports map, the declarations or the runtime
// dependencies of either package are incomplete.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const work = mkdtempSync(join(tmpdir(), "umo-packaging-"))
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" })

try {
  for (const workspace of ["@umo/core", "@umo/plugins"]) {
    run("npm", ["pack", "--silent", "--workspace", workspace, "--pack-destination", work], root)
  }
  const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"))
  const core = tarballs.find((f) => f.startsWith("umo-core-"))
  const plugins = tarballs.find((f) => f.startsWith("umo-plugins-"))
  if (!core || !plugins) throw new Error(`expected two tarballs, got ${tarballs.join(", ")}`)

  const app = join(work, "app")
  run("mkdir", ["-p", app], work)
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "umo-packaging-check",
      private: true,
      type: "module",
      dependencies: { "@umo/core": `file:../${core}`, "@umo/plugins": `file:../${plugins}` }
    })
  )
  writeFileSync(join(app, ".npmrc"), "onnxruntime-node-install=skip\nfund=false\naudit=false\n")
  writeFileSync(
    join(app, "consumer.ts"),
    `import { Pipeline, type Umo } from "@umo/core"
import { defaultPlugins, UseLiteEmbedder } from "@umo/plugins"
import { normalizeText } from "@umo/plugins/nlp"
import { Effect } from "effect"

const text = normalizeText("  Ada Lovelace worked with Charles Babbage in London.  ")
const program = Pipeline.make(defaultPlugins()).process({ content: text })
const umo: Umo = await Effect.runPromise(program.pipe(Effect.provide(UseLiteEmbedder.layer())))
const people = umo.entities.filter((e) => e.type === "PERSON").map((e) => e.text)
if (!people.includes("Ada Lovelace")) throw new Error("no PERSON Ada Lovelace in " + JSON.stringify(umo.entities))
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
  // Type-check the consumer against the declarations the tarballs ship, with the workspace's tsc.
  run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], app)
  const output = run(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "consumer.ts"], app)
  console.log(`packaging: ${core} and ${plugins} install, type-check and run outside the workspace`)
  console.log(`packaging: ${output.trim()}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
