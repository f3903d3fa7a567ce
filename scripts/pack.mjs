// `npm run pack [-- DIR]`: the installable tarballs of the packages an app of its own uses, in
// ./packed (or DIR): @umo/client; @umo/memory with @umo/core and @umo/plugins, which it needs;
// @umo/server (the `umo` command) with @umo/mcp; and the integrations (@umo/vercel-ai,
// @umo/langchain). Each package's prepack builds it first (unless it is built already, see below).
// Install them together in another project, e.g. `npm install /path/to/packed/*.tgz` (see the
// README).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const destination = resolve(process.argv[2] ?? join(root, "packed"))
export const packages = [
  "@umo/core",
  "@umo/plugins",
  "@umo/client",
  "@umo/memory",
  "@umo/mcp",
  "@umo/server",
  "@umo/vercel-ai",
  "@umo/langchain"
]

/** The newest modification time of the files under `dir` (0 when there is none). */
const newest = (dir) =>
  existsSync(dir)
    ? Math.max(
        0,
        ...readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
      )
    : 0
const folders = {
  "@umo/client": "clients/js",
  "@umo/vercel-ai": "integrations/vercel-ai",
  "@umo/langchain": "integrations/langchain"
}
const directoryOf = (name) => join(root, folders[name] ?? name.replace("@umo/", ""))
// Each package's prepack builds it, unless every dist/ is newer than its sources (as `npm install`
// and `npm run build` leave them): then UMO_PACK_BUILT spares the builds.
const built = packages.every((name) => {
  const dir = directoryOf(name)
  const sources = Math.max(newest(join(dir, "src")), statSync(join(dir, "package.json")).mtimeMs)
  return newest(join(dir, "dist")) > sources
})

mkdirSync(destination, { recursive: true })
for (const old of readdirSync(destination).filter((f) => /^umo-.*\.tgz$/.test(f)))
  rmSync(join(destination, old))
execFileSync(
  "npm",
  [
    "pack",
    "--silent",
    ...packages.flatMap((name) => ["--workspace", name]),
    "--pack-destination",
    destination
  ],
  {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ...(built ? { UMO_PACK_BUILT: "1" } : {}) }
  }
)
const tarballs = readdirSync(destination).filter((f) => /^umo-.*\.tgz$/.test(f))
if (tarballs.length !== packages.length)
  throw new Error(
    `pack: expected ${packages.length} tarballs in ${destination}, found ${tarballs.join(", ")}`
  )
const shown = relative(process.cwd(), destination) || "."
for (const file of tarballs.sort())
  console.log(
    `${join(shown, file).padEnd(44)} ${(statSync(join(destination, file)).size / 1024).toFixed(0).padStart(6)} KB`
  )
