/**
 * One scenario through Mem0's own Python client, side by side: Mem0 open source (`mem0.Memory`,
 * configured as bench:peers runs it, `infer=False` since no language model runs here) and UMO's
 * reference server through `mem0.MemoryClient(api_key=<UMO key>, host=<server>/mem0)`, the same
 * `mem0ai` 2.2.1, with the client's defaults. A person's facts change over time (home, job, diet),
 * others do not; then searches, get all, an update, its history and delete all
 * (bench/peers/mem0_compat.py). Prints the two side by side with what differs, and writes
 * bench/results/mem0-compat.md and .json.
 *
 *   npm run bench:mem0-compat
 *
 * Opt-in like bench:peers: the peers' virtualenv is made on first use (bench/src/peers/Venv.ts).
 * Each system gets a fresh PostgreSQL database (umo_mem0compat_*), dropped afterwards; UMO runs as
 * its own server process (`server/src/main.ts`) with the default embedder and one API key.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { startServer } from "../../server/test/support/ServerProcess.js"
import { dropDatabase, provisionDatabase, umoEmbedderEnv } from "./peers/Systems.js"
import { ensurePeers } from "./peers/Venv.js"
import { benchSigningKey, modelsDir, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"

interface Step {
  readonly name: string
  readonly kind: "add" | "search" | "get_all" | "get" | "update" | "history" | "delete_all"
  readonly call: string
  readonly ms: number
  readonly response?: unknown
  readonly error?: { readonly type: string; readonly message: string; readonly details: unknown }
  readonly summary?: Record<string, unknown>
}

interface Run {
  readonly system: "oss" | "umo"
  readonly failed?: string
  readonly versions: Record<string, string>
  readonly config: unknown
  readonly scenario_ms: number
  readonly top_k: number
  readonly steps: ReadonlyArray<Step>
}

const script = join(root, "bench", "peers", "mem0_compat.py")
const started = performance.now()

/** Runs the scenario once in the peers' Python; its one JSON answer. */
const runScenario = (python: string, request: Record<string, unknown>) =>
  new Promise<Run>((resolve, reject) => {
    const child = spawn(python, [script], { stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8000)
    })
    child.once("error", reject)
    child.once("close", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? ""
      let run: Run
      try {
        run = JSON.parse(line) as Run
      } catch {
        return reject(new Error(`mem0_compat.py exited with ${code} and no answer:\n${stderr}`))
      }
      if (run.failed) return reject(new Error(`mem0_compat.py (${run.system}): ${run.failed}\n${stderr}`))
      resolve(run)
    })
    child.stdin.end(JSON.stringify(request))
  })

const peers = ensurePeers(root)

const ossRun = async (): Promise<Run> => {
  const url = provisionDatabase(root, "umo_mem0compat_mem0")
  const workDir = mkdtempSync(join(tmpdir(), "umo-mem0compat-oss-"))
  try {
    process.stderr.write("bench:mem0-compat: Mem0 OSS (mem0.Memory, infer=False)\n")
    return await runScenario(peers.python, {
      system: "oss",
      model_dir: peers.modelDir,
      database_url: url,
      work_dir: workDir
    })
  } finally {
    rmSync(workDir, { recursive: true, force: true })
    dropDatabase(url)
  }
}

const key = `umo_mem0compat-${"0".repeat(24)}`
const embedderEnv = umoEmbedderEnv(modelsDir, "sentence-transformers/all-mpnet-base-v2", "int8")
const { version: serverVersion } = JSON.parse(readFileSync(join(root, "server", "package.json"), "utf8")) as {
  version: string
}

const umoRun = async (): Promise<Run> => {
  const url = provisionDatabase(root, "umo_mem0compat_umo")
  const workDir = mkdtempSync(join(tmpdir(), "umo-mem0compat-umo-"))
  try {
    const server = await startServer(
      root,
      { [key]: "mem0compat" },
      { ...embedderEnv, DATABASE_URL: url, UMO_SIGNING_KEY: benchSigningKey() }
    )
    try {
      process.stderr.write(
        `bench:mem0-compat: UMO ${serverVersion} via MemoryClient at ${server.baseUrl}/mem0\n`
      )
      const run = await runScenario(peers.python, {
        system: "umo",
        host: `${server.baseUrl}/mem0`,
        api_key: key,
        work_dir: workDir
      })
      // The port changes from run to run; the result file names the path only.
      return JSON.parse(JSON.stringify(run).replaceAll(server.baseUrl, "http://127.0.0.1:<port>")) as Run
    } finally {
      await server.stop()
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true })
    dropDatabase(url)
  }
}

const oss = await ossRun()
const umo = await umoRun()
const seconds = Math.round((performance.now() - started) / 1000)

// ---- Rendering ------------------------------------------------------------------------------

const quote = (text: unknown, max = 60) => {
  const s = String(text ?? "")
  return `“${s.length > max ? `${s.slice(0, max - 1)}…` : s}”`
}
// UMO's ids begin with their time, so the end tells them apart.
const shortId = (id: unknown) => (typeof id === "string" ? `\`…${id.slice(-8)}\`` : "—")
const cellSafe = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ")

type Events = ReadonlyArray<{ event: string; memory: string; id: string }>
type Found = ReadonlyArray<{ memory: string; score: number; id: string }>
type Entries = ReadonlyArray<{ event: string; old_memory: string | null; new_memory: string; id: string }>

/** How many events of each kind. */
const countEvents = (events: Events) => {
  const n: Record<string, number> = {}
  for (const e of events) n[e.event] = (n[e.event] ?? 0) + 1
  return n
}

/** One step's outcome as a table cell, lines joined with `<br>`. */
const cell = (step: Step | undefined): string => {
  if (step === undefined) return "—"
  if (step.error) return `**raised ${step.error.type}**: ${cellSafe(step.error.message.slice(0, 200))}`
  const s = step.summary ?? {}
  const lines: Array<string> = []
  switch (step.kind) {
    case "add":
      for (const e of s["events"] as Events) lines.push(`${e.event} ${quote(e.memory, 50)} ${shortId(e.id)}`)
      if (lines.length === 0) lines.push("no events")
      break
    case "search": {
      for (const [i, r] of (s["results"] as Found).entries())
        lines.push(
          `${i + 1}. ${quote(r.memory, 45)} (${typeof r.score === "number" ? r.score.toFixed(3) : "?"})`
        )
      const rank = (r: unknown) => (r === null || r === undefined ? "absent" : `#${r}`)
      lines.push(
        s["outdated_rank"] === undefined || s["outdated_rank"] === null
          ? `current ${rank(s["current_rank"])}; outdated absent`
          : `current ${rank(s["current_rank"])}; **outdated ${rank(s["outdated_rank"])}**`
      )
      break
    }
    case "get_all": {
      const outdated = s["outdated_present"] as Array<string>
      const duplicates = s["duplicates"] as Array<string>
      lines.push(
        `${s["count"]} memories; outdated kept: ${outdated.length ? `**${outdated.join(", ")}**` : "none"}${
          duplicates.length ? `; duplicates: ${duplicates.map((d) => quote(d, 30)).join(", ")}` : ""
        }`
      )
      break
    }
    case "get":
      lines.push(s["found"] ? quote(s["memory"]) : "not found (None)")
      break
    case "update":
      lines.push(
        s["id"] === undefined || s["id"] === null
          ? `answers ${cellSafe(JSON.stringify(step.response))}; the id stays`
          : `answers the new version ${shortId(s["id"])} (keys: ${(s["keys"] as Array<string>).join(", ")})`
      )
      break
    case "history": {
      const entries = s["entries"] as Entries
      lines.push(`${entries.length} entries`)
      for (const e of entries)
        lines.push(
          e.old_memory
            ? `${e.event} ${quote(e.old_memory, 30)} → ${quote(e.new_memory, 30)}`
            : `${e.event} ${quote(e.new_memory, 40)}`
        )
      break
    }
    case "delete_all":
      lines.push(
        `${cellSafe(String(s["message"]))}${s["deleted"] === null || s["deleted"] === undefined ? "" : ` (deleted: ${s["deleted"]})`}`
      )
      break
  }
  return lines.map(cellSafe).join("<br>")
}

/** What a step shows apart from ids, scores and times, to tell whether the two sides agree. */
const shape = (step: Step | undefined): string => {
  if (step === undefined) return "absent"
  if (step.error) return `error ${step.error.type}`
  const s = step.summary ?? {}
  switch (step.kind) {
    case "add":
      return JSON.stringify((s["events"] as Events).map((e) => [e.event, e.memory]))
    case "search":
      return JSON.stringify([(s["results"] as Found).map((r) => r.memory)])
    case "get_all":
      return JSON.stringify([s["memories"]])
    case "get":
      return JSON.stringify(s["memory"])
    case "update":
      return s["id"] ? "new id" : "same id"
    case "history":
      return JSON.stringify((s["entries"] as Entries).map((e) => [e.event, e.old_memory, e.new_memory]))
    case "delete_all":
      return "deleted"
  }
}

/** How the two sides differ at a step, in a few words; empty when they agree. */
const difference = (a: Step | undefined, b: Step | undefined): string => {
  if (shape(a) === shape(b)) return "same"
  if (a === undefined || b === undefined) return "only one side has this step"
  if (a.error || b.error) return "one side raised"
  const sa = a.summary ?? {}
  const sb = b.summary ?? {}
  switch (a.kind) {
    case "add": {
      const count = (s: Record<string, unknown>) => countEvents(s["events"] as Events)
      const show = (n: Record<string, number>) =>
        Object.entries(n)
          .map(([k, v]) => `${v} ${k}`)
          .join(", ") || "none"
      return `events: ${show(count(sa))} vs ${show(count(sb))}`
    }
    case "search": {
      const parts: Array<string> = []
      if (sa["outdated_rank"] !== sb["outdated_rank"])
        parts.push(`outdated ${sa["outdated_rank"] ?? "absent"} vs ${sb["outdated_rank"] ?? "absent"}`)
      if (sa["current_rank"] !== sb["current_rank"])
        parts.push(`current ${sa["current_rank"] ?? "absent"} vs ${sb["current_rank"] ?? "absent"}`)
      if (sa["copies_of_top"] !== sb["copies_of_top"])
        parts.push(`copies of the top result ${sa["copies_of_top"]} vs ${sb["copies_of_top"]}`)
      return parts.join("; ") || "other results / order"
    }
    case "get_all":
      return `${sa["count"]} vs ${sb["count"]} memories; outdated kept ${(sa["outdated_present"] as Array<string>).length} vs ${(sb["outdated_present"] as Array<string>).length}; duplicates ${(sa["duplicates"] as Array<string>).length} vs ${(sb["duplicates"] as Array<string>).length}`
    case "update":
      return `${sa["id"] ? "new id" : "id kept"} vs ${sb["id"] ? "new id" : "id kept"}`
    case "history":
      return `${sa["length"]} vs ${sb["length"]} entries`
    case "get":
      return `the id reads ${sa["reads"] === "job: as updated" ? "the updated text" : "the text before the update"} vs ${sb["reads"] === "job: as updated" ? "the updated text" : "the text before the update"}`
    case "delete_all":
      return "other answer"
  }
}

const labels = { oss: "Mem0 OSS, `Memory` (infer=False)", umo: "UMO /mem0, `MemoryClient`" }
/** The steps of both runs in the order they ran: a step only one side has stays where it ran. */
const names: Array<string> = []
for (const run of [umo, oss])
  run.steps.forEach((step, i) => {
    if (names.includes(step.name)) return
    const before = run.steps[i - 1]?.name
    names.splice(before === undefined ? 0 : names.indexOf(before) + 1, 0, step.name)
  })
const stepOf = (run: Run, name: string) => run.steps.find((s) => s.name === name)
const rows = names.map((name) => {
  const a = stepOf(oss, name)
  const b = stepOf(umo, name)
  return { name, oss: a, umo: b, differs: difference(a, b) }
})

/** The headline differences, from the summaries. */
const findings = (): Array<string> => {
  const out: Array<string> = []
  const events = (run: Run) =>
    countEvents(
      run.steps
        .filter((s) => s.kind === "add")
        .flatMap((s) => (s.summary?.["events"] as Events | undefined) ?? [])
    )
  const show = (n: Record<string, number>) =>
    Object.entries(n)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")
  out.push(
    `add events over the ${oss.steps.filter((s) => s.kind === "add").length} adds: Mem0 OSS ${show(events(oss))}; UMO ${show(events(umo))}.`
  )
  const searches = rows.filter((r) => r.oss?.kind === "search")
  const outdatedIn = (run: "oss" | "umo") =>
    searches.filter((r) => {
      const rank = r[run]?.summary?.["outdated_rank"]
      return rank !== null && rank !== undefined
    }).length
  const changing = searches.filter((r) => r.oss?.summary?.["about_changed_fact"] === true).length
  out.push(
    `search (top ${oss.top_k}): the outdated fact was among the results in ${outdatedIn("oss")} of ${changing} questions about a changed fact for Mem0 OSS, ${outdatedIn("umo")} for UMO; the current fact ranked first in ${searches.filter((r) => r.oss?.summary?.["current_rank"] === 1).length} vs ${searches.filter((r) => r.umo?.summary?.["current_rank"] === 1).length} of ${searches.length}.`
  )
  const all = rows.find((r) => r.name === "get_all (user maria)")
  if (all?.oss?.summary && all.umo?.summary)
    out.push(
      `get_all: Mem0 OSS ${all.oss.summary["count"]} memories (outdated kept: ${(all.oss.summary["outdated_present"] as Array<string>).join(", ") || "none"}; duplicates: ${(all.oss.summary["duplicates"] as Array<string>).length}); UMO ${all.umo.summary["count"]} (outdated kept: ${(all.umo.summary["outdated_present"] as Array<string>).join(", ") || "none"}; duplicates: ${(all.umo.summary["duplicates"] as Array<string>).length}).`
    )
  const update = rows.find((r) => r.oss?.kind === "update")
  if (update?.oss && update.umo)
    out.push(
      `update: Mem0 OSS ${update.oss.summary?.["id"] ? "returns a new id" : "changes the memory in place (same id) and answers only a message"}; UMO ${update.umo.summary?.["id"] ? "stores a new version with its own id, which the answer carries (the old id still reads)" : "keeps the id"}.`
    )
  const histories = (run: Run) =>
    run.steps
      .filter((s) => s.kind === "history")
      .map(
        (s) =>
          `${s.summary?.["length"] ?? "error"} ${s.name.replace(/^history of the job \((.*)\)$/, "($1)")}`
      )
      .join(", ")
  out.push(`history lengths: Mem0 OSS ${histories(oss)}; UMO ${histories(umo)}.`)
  const after = (run: Run) => stepOf(run, "get_all after delete_all")?.summary?.["count"]
  out.push(`after delete_all, get_all returns ${after(oss)} (Mem0 OSS) and ${after(umo)} (UMO) memories.`)
  const errors = [...oss.steps, ...umo.steps].filter((s) => s.error)
  out.push(
    errors.length === 0
      ? "No call raised on either side."
      : `Calls that raised: ${errors.map((s) => `${s.call}: ${s.error!.type}`).join("; ")}.`
  )
  return out
}

const m = machine()
const versions = {
  "@umo/server": serverVersion,
  node: process.version,
  ...Object.fromEntries(Object.entries(oss.versions).map(([k, v]) => [k, v])),
  ...Object.fromEntries(Object.entries(umo.versions).map(([k, v]) => [k, v]))
}
const table = [
  `| step | ${labels.oss} | ${labels.umo} | differs |`,
  "|---|---|---|---|",
  ...rows.map((r) => `| ${cellSafe(r.name)} | ${cell(r.oss)} | ${cell(r.umo)} | ${cellSafe(r.differs)} |`)
].join("\n")
const calls = (run: Run) => run.steps.map((s) => `- ${s.name}: \`${s.call}\` (${s.ms} ms)`).join("\n")
const headline = findings()

const markdown = `# Mem0's Python client: Mem0 open source beside UMO's \`/mem0\`

Written by \`npm run bench:mem0-compat\` (bench/src/mem0compat.ts, bench/peers/mem0_compat.py); the
raw answers of every call are in [mem0-compat.json](mem0-compat.json).

Machine: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}, ${m.date}; the run took ${seconds} s
(Mem0 OSS scenario ${(oss.scenario_ms / 1000).toFixed(1)} s, UMO scenario ${(umo.scenario_ms / 1000).toFixed(1)} s, both after start-up
and a warm-up each: Mem0 OSS's driver warm-up, UMO an add, search and delete_all for another user; the times are single calls on a shared machine, shown for orientation only).
Versions: ${Object.entries(versions)
  .map(([k, v]) => `${k} ${v}`)
  .join(", ")}.

One scenario, the same calls in the same order, through the same \`mem0ai\` 2.2.1 package:

- **Mem0 OSS**: \`mem0.Memory.from_config\` as bench:peers configures it (the huggingface embedder on
  all-mpnet-base-v2 fp32, pgvector on a fresh PostgreSQL database, an LLM entry that is never called).
  Mem0 infers memories with a language model (\`infer=True\`), and none runs here, so **every add passes
  \`infer=False\`**: Mem0 stores each message as it was said, with no extraction and no update of older
  memories. With a language model, Mem0's own answers to these adds would differ.
- **UMO**: the reference server (\`server/src/main.ts\`, @umo/server ${serverVersion}, fresh PostgreSQL database,
  default embedder all-mpnet-base-v2 int8) through \`mem0.MemoryClient(api_key=<UMO key>,
  host="http://127.0.0.1:<port>/mem0")\`, with the client's defaults (no \`infer\` sent): UMO runs its own
  update inference, with no language model either.

The person (user_id \`maria\`) moves from Madrid to Greenwich, changes job and diet, and has facts that do
not change; one fact is said twice. Searches ask for the top ${oss.top_k}. "Outdated" is the earlier version
of a changed fact. Ids are shortened to their last 8 characters.

## What differs

${headline.map((f) => `- ${f}`).join("\n")}

## Side by side

${table}

## The calls

Mem0 OSS:

${calls(oss)}

UMO through MemoryClient:

${calls(umo)}
`

const json = {
  benchmark: "Mem0's Python client: Mem0 open source (infer=False) beside UMO's /mem0 (bench:mem0-compat)",
  machine: m,
  seconds,
  versions,
  notes: [
    "Mem0 OSS ran with infer=False: its inference needs a language model and none runs here; each message is stored as it was said.",
    "UMO ran with the client's defaults (no infer sent): its own update inference, no language model.",
    "Mem0 OSS embeds with all-mpnet-base-v2 fp32 (sentence-transformers); UMO with the server's default, all-mpnet-base-v2 int8 (ONNX)."
  ],
  findings: headline,
  systems: {
    oss: { label: labels.oss, ...oss },
    umo: { label: labels.umo, ...umo }
  },
  comparison: rows.map((r) => ({ step: r.name, differs: r.differs }))
}

const dir = join(root, "bench", "results")
mkdirSync(dir, { recursive: true })
writeFileSync(join(dir, "mem0-compat.md"), markdown)
writeFileSync(join(dir, "mem0-compat.json"), `${JSON.stringify(json, null, 2)}\n`)
console.log(`${headline.map((f) => `- ${f}`).join("\n")}\n`)
console.log(
  rows
    .map(
      (r) =>
        `${r.name}\n  Mem0 OSS: ${cell(r.oss).replaceAll("<br>", "\n            ")}\n  UMO:      ${cell(r.umo).replaceAll("<br>", "\n            ")}\n  differs:  ${r.differs}`
    )
    .join("\n")
)
console.log(
  `\nwrote ${relative(root, join(dir, "mem0-compat.md"))} and ${relative(root, join(dir, "mem0-compat.json"))} (${seconds} s)`
)
