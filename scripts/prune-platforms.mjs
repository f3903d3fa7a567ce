// Deletes what npm installs but nothing here can run: of onnxruntime-node's builds (288 MB for
// Linux, macOS and Windows, x64 and arm64) all but this platform's (45 MB on linux-x64), and
// onnxruntime-web (141 MB), the browser's ONNX runtime, which @huggingface/transformers lists as a
// dependency but whose Node build never loads (it runs onnxruntime-node; its browser build bundles
// its own copy). npm has no way to leave out one platform's files of a package, or a dependency of
// a dependency (an override to a local stub resolves against the wrong directory in npm 11), so
// `npm install` runs this after it (the prepare step). Idempotent; runs on any Node.
import { existsSync, readdirSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const keep = { platform: process.platform, arch: process.arch }

/** Where `name` is installed: node_modules of the root and of the workspaces, nested ones included. */
const installs = (name) => {
  const found = []
  const visit = (modules, depth) => {
    if (!existsSync(modules)) return
    if (existsSync(join(modules, name))) found.push(join(modules, name))
    if (depth === 0) return
    for (const entry of readdirSync(modules)) {
      const dirs = entry.startsWith("@")
        ? readdirSync(join(modules, entry)).map((d) => join(entry, d))
        : [entry]
      for (const dir of dirs) visit(join(modules, dir, "node_modules"), depth - 1)
    }
  }
  for (const base of [root, ...readdirSync(root).map((d) => join(root, d))])
    visit(join(base, "node_modules"), 2)
  return [...new Set(found)]
}

/** Every <platform>/<arch> build directory under a package's bin/napi-v*, but this one's, removed. */
const prune = (pkgDir) => {
  const bin = join(pkgDir, "bin")
  if (!existsSync(bin)) return 0
  let removed = 0
  for (const napi of readdirSync(bin).filter((d) => d.startsWith("napi-v"))) {
    for (const platform of readdirSync(join(bin, napi))) {
      const platformDir = join(bin, napi, platform)
      if (platform !== keep.platform) {
        rmSync(platformDir, { recursive: true, force: true })
        removed++
        continue
      }
      for (const arch of readdirSync(platformDir)) {
        if (arch === keep.arch) continue
        rmSync(join(platformDir, arch), { recursive: true, force: true })
        removed++
      }
    }
  }
  const napis = readdirSync(bin).filter((d) => d.startsWith("napi-v"))
  if (!napis.some((napi) => existsSync(join(bin, napi, keep.platform, keep.arch))))
    console.warn(`prune-platforms: ${pkgDir} has no build for ${keep.platform}-${keep.arch}`)
  return removed
}

for (const pkgDir of installs("onnxruntime-node")) {
  const removed = prune(pkgDir)
  if (removed > 0)
    console.error(
      `prune-platforms: removed ${removed} other-platform builds from ${pkgDir} (kept ${keep.platform}-${keep.arch})`
    )
}

/**
 * A node-gyp-build package's other-platform builds: its `prebuilds/<platform>-<arch>[+<arch>…]`
 * directories but this platform's (usearch ships Linux, macOS and Windows builds, 4 MB each).
 */
const prunePrebuilds = (pkgDir) => {
  const prebuilds = join(pkgDir, "prebuilds")
  if (!existsSync(prebuilds)) return 0
  let removed = 0
  for (const dir of readdirSync(prebuilds)) {
    const [platform, arches = ""] = dir.split("-")
    if (platform === keep.platform && arches.split("+").includes(keep.arch)) continue
    rmSync(join(prebuilds, dir), { recursive: true, force: true })
    removed++
  }
  return removed
}

for (const pkgDir of installs("usearch")) {
  const removed = prunePrebuilds(pkgDir)
  if (removed > 0) console.error(`prune-platforms: removed ${removed} other-platform builds from ${pkgDir}`)
}

for (const pkgDir of installs("onnxruntime-web")) {
  rmSync(pkgDir, { recursive: true, force: true })
  console.error(`prune-platforms: removed ${pkgDir} (the browser's ONNX runtime; Node runs onnxruntime-node)`)
}
