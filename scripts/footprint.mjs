// What the checkout takes on disk, and of what: the total; node_modules and its ten largest
// packages; each model directory; each directory under .cache; and whether any native binary is
// for another platform or a GPU. `npm run footprint`; CI runs it right after `npm ci`, so that a
// heavier default install shows. Sizes are disk use as `du` counts it (1 MB = 2^20 bytes).
//
//   node scripts/footprint.mjs [--max-mb N]   (with --max-mb, exits 1 when the total is larger)
import { execFileSync } from "node:child_process"
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const maxIndex = process.argv.indexOf("--max-mb")
const maxMb = maxIndex > 0 ? Number(process.argv[maxIndex + 1]) : undefined

/**
 * Disk use in KB of each path: one `du` per group of paths that do not overlap (du counts a file
 * once per run, so a directory inside one already counted would show as empty).
 */
const sizes = new Map()
const du = (paths) => {
  const present = paths.filter((p) => existsSync(p))
  if (present.length === 0) return
  const out = execFileSync("du", ["-sk", ...present], { encoding: "utf8", maxBuffer: 64 << 20 })
  for (const line of out.trim().split("\n")) {
    const tab = line.indexOf("\t")
    sizes.set(line.slice(tab + 1), Number(line.slice(0, tab)))
  }
}
const mb = (kb) => {
  const m = kb / 1024
  return m >= 1024 ? `${(m / 1024).toFixed(2)} GB` : `${m >= 10 ? m.toFixed(0) : m.toFixed(1)} MB`
}
const dirs = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() || d.isSymbolicLink())
        .map((d) => d.name)
    : []
const row = (label, kb, indent = 2) =>
  console.log(`${" ".repeat(indent)}${label.padEnd(60 - indent)} ${mb(kb).padStart(9)}`)
const shown = (path) => (isAbsolute(path) && !path.startsWith(root) ? path : relative(root, path) || ".")

// --- sizes ---------------------------------------------------------------------------------------
const modules = join(root, "node_modules")
const packages = dirs(modules)
  .filter((d) => !d.startsWith("."))
  .flatMap((d) => (d.startsWith("@") ? dirs(join(modules, d)).map((s) => join(d, s)) : [d]))
const modelsDir = resolve(root, process.env.UMO_MODELS_DIR ?? "models")
const modelDirs = dirs(modelsDir)
  .filter((d) => !d.startsWith("."))
  .flatMap((d) =>
    d === "gguf"
      ? readdirSync(join(modelsDir, d)).map((f) => join(d, f))
      : dirs(join(modelsDir, d)).map((s) => join(d, s))
  )
const cache = join(root, ".cache")
const cacheDirs = dirs(cache)
const llmRuntime = resolve(root, process.env.UMO_LLM_RUNTIME ?? ".cache/llm")
const topLevel = readdirSync(root).filter((d) => d !== ".git")
du([...topLevel.map((d) => join(root, d)), join(root, ".git")])
du(packages.map((p) => join(modules, p)))
du([
  ...(topLevel.includes("models") && modelsDir === join(root, "models") ? [] : [modelsDir]),
  ...(llmRuntime.startsWith(cache) ? [] : [llmRuntime])
])
du([...modelDirs.map((d) => join(modelsDir, d)), ...cacheDirs.map((d) => join(cache, d))])
const size = (path) => sizes.get(path) ?? 0
const total = topLevel.reduce((sum, d) => sum + size(join(root, d)), 0)
const listed = new Set(["node_modules", "models", ".cache"])

console.log(`UMO footprint of ${root} (disk use; 1 MB = 2^20 bytes)`)
row("total checkout (without .git)", total, 0)
row("node_modules", size(modules))
const largest = packages.map((p) => [p, size(join(modules, p))]).sort((a, b) => b[1] - a[1])
for (const [name, kb] of largest.slice(0, 10)) row(name, kb, 6)
row(
  `the other ${Math.max(0, largest.length - 10)} packages`,
  largest.slice(10).reduce((s, [, kb]) => s + kb, 0),
  6
)
row(
  `models${modelsDir === join(root, "models") ? "" : ` (UMO_MODELS_DIR=${shown(modelsDir)})`}`,
  size(modelsDir)
)
for (const d of modelDirs) row(d, size(join(modelsDir, d)), 6)
if (modelDirs.length === 0) console.log("      (none)")
row(".cache", size(cache))
for (const d of cacheDirs) row(`.cache/${d}`, size(join(cache, d)), 6)
if (!llmRuntime.startsWith(cache) && existsSync(llmRuntime))
  row(`UMO_LLM_RUNTIME=${llmRuntime}`, size(llmRuntime), 6)
const rest = topLevel.filter((d) => !listed.has(d))
row(
  `the rest (sources, dist, data…: ${rest.length} entries)`,
  rest.reduce((s, d) => s + size(join(root, d)), 0)
)
row(".git (not counted above)", size(join(root, ".git")))

// --- native binaries -----------------------------------------------------------------------------
// Every native library or executable is read for its format and machine: ELF, PE or Mach-O, and
// the CPU it is built for. Another OS or CPU than this one's is reported, and so are GPU builds
// (CUDA, Vulkan, Metal, ROCm), by their paths.
const elfMachines = { 3: "ia32", 40: "arm", 62: "x64", 183: "arm64", 243: "riscv64" }
const machOCpus = { 16777223: "x64", 16777228: "arm64" }
const peMachines = { 34404: "x64", 43620: "arm64", 332: "ia32" }
const header = Buffer.alloc(64)
const identify = (file) => {
  const fd = openSync(file, "r")
  try {
    const n = readSync(fd, header, 0, 64, 0)
    if (n >= 20 && header.readUInt32BE(0) === 0x7f454c46)
      return { os: "linux", arch: elfMachines[header.readUInt16LE(18)] ?? "other" }
    if (n >= 8 && header.readUInt32LE(0) === 0xfeedfacf)
      return { os: "darwin", arch: machOCpus[header.readUInt32LE(4)] ?? "other" }
    if (n >= 4 && header.readUInt32BE(0) === 0xcafebabe) return { os: "darwin", arch: "universal" }
    if (n >= 64 && header.readUInt16BE(0) === 0x4d5a) {
      const pe = header.readUInt32LE(60)
      const buf = Buffer.alloc(6)
      readSync(fd, buf, 0, 6, pe)
      return { os: "win32", arch: peMachines[buf.readUInt16LE(4)] ?? "other" }
    }
    return undefined
  } finally {
    closeSync(fd)
  }
}
const native = /\.(node|so(\.\d+)*|dll|dylib|exe)$/
const gpu = /cuda|cublas|vulkan|metal|rocm|hip[-_.]|opencl/i
const found = { here: 0, hereKb: 0, other: new Map(), gpu: new Map() }
const note = (map, key, kb) => map.set(key, (map.get(key) ?? 0) + kb)
/** The package a file belongs to (its innermost node_modules/<name>), for the report. */
const packageOf = (file) => {
  const parts = relative(root, file).split("/")
  const i = parts.lastIndexOf("node_modules")
  if (i < 0) return parts.slice(0, 3).join("/")
  const name = parts[i + 1]?.startsWith("@") ? parts.slice(i + 1, i + 3) : parts.slice(i + 1, i + 2)
  return [...parts.slice(0, i + 1), ...name].join("/")
}
const scan = (dir) => {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) scan(path)
    else if (entry.isFile()) {
      const candidate =
        native.test(entry.name) || (!entry.name.includes(".") && statSync(path).size > 1 << 20)
      if (!candidate) continue
      const kind = identify(path)
      if (kind === undefined) continue
      const kb = Math.ceil(statSync(path).size / 1024)
      const where = packageOf(path)
      if (gpu.test(relative(root, path))) note(found.gpu, where, kb)
      else if (kind.os !== process.platform || (kind.arch !== process.arch && kind.arch !== "universal"))
        note(found.other, `${where} (${kind.os}-${kind.arch})`, kb)
      else {
        found.here++
        found.hereKb += kb
      }
    }
  }
}
for (const dir of [modules, cache, llmRuntime]) if (existsSync(dir)) scan(dir)
for (const d of topLevel.filter((d) => !d.startsWith("."))) scan(join(root, d, "node_modules"))

console.log(`native binaries for ${process.platform}-${process.arch}: ${found.here} (${mb(found.hereKb)})`)
const report = (label, map) => {
  if (map.size === 0) return console.log(`${label}: none`)
  console.log(`${label}: ${map.size} packages, ${mb([...map.values()].reduce((a, b) => a + b, 0))}`)
  for (const [where, kb] of [...map].sort((a, b) => b[1] - a[1])) row(where, kb, 6)
}
report("binaries for other platforms", found.other)
report("GPU builds", found.gpu)

if (maxMb !== undefined && total / 1024 > maxMb) {
  console.error(`footprint: the checkout takes ${mb(total)}, more than the ${maxMb} MB allowed`)
  process.exit(1)
}
