/**
 * Memories in and out, through `openMemory` with the default embedder (all-mpnet-base-v2 int8):
 *
 *   npm run bench:import              # 10,000 memories
 *   npm run bench:import -- --quick   # 500
 *   npm run bench:import -- --memories 50000
 *
 * 1. A Mem0 export (`get_all`'s JSON: `{"results": [...]}`, written here from LoCoMo turns with
 *    100 users, some with an agent and a run, metadata and creation times over two years) is
 *    imported into a fresh store: every memory through the whole pipeline and the real embedder.
 * 2. The same file again: an import resumed after an interruption stores nothing twice.
 * 3. That store is exported with its vectors (JSON Lines, streamed to a file) and
 * 4. the export imported into a second store (its own database and signing key): every proof
 *    checked against the export's keys, the vectors reused, the supersessions restored.
 * Reported: memories per second for each, the files' sizes, the process's peak RSS (the file is
 * never held whole), and whether the copy is the original (same count, same content hashes, same
 * scopes and metadata, every proof verified).
 */

import { once } from "node:events"
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { finished } from "node:stream/promises"
import type { ExportedMemory } from "@umo/client"
import { type OpenMemory, openMemory } from "@umo/memory"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { seeded, turnTexts } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"

const size = Number(argument("memories") ?? (quick ? 500 : 10_000))
const users = 100
const dir = mkdtempSync(join(tmpdir(), "umo-bench-transfers-"))

let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}, 100)

/** Mem0's get_all JSON for `size` memories, written a memory at a time. */
const writeMem0 = async (file: string) => {
  const random = seeded(31)
  const texts = turnTexts(root, size, 31)
  const out = createWriteStream(file)
  const start = Date.parse("2023-01-01T00:00:00Z")
  out.write('{"results":[\n')
  for (const [i, text] of texts.entries()) {
    const created = new Date(start + Math.floor((i / size) * 730 * 86_400_000))
    const item = {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      memory: text,
      hash: null,
      user_id: `user-${Math.floor(random() * users)}`,
      ...(random() < 0.3 ? { agent_id: "travel-agent", run_id: `run-${i % 500}` } : {}),
      metadata: random() < 0.5 ? { category: ["personal", "work", "travel"][i % 3], imported: true } : null,
      categories: ["misc"],
      created_at: created.toISOString(),
      updated_at: null
    }
    if (!out.write(`${i === 0 ? "" : ",\n"}${JSON.stringify(item)}`)) await once(out, "drain")
  }
  out.end("\n]}\n")
  await finished(out)
}

const timed = async <A>(what: string, run: () => Promise<A>) => {
  progress(`${what}…`)
  const started = performance.now()
  const result = await run()
  const seconds = (performance.now() - started) / 1000
  progress(`${what}: ${seconds.toFixed(1)} s\n`)
  return { result, seconds }
}

const perSecond = (count: number, seconds: number) => Math.round(count / seconds)

/** Every memory of a store's export, keyed by where it came from. */
const exported = async (memory: OpenMemory) => {
  const lines: Array<ExportedMemory> = []
  for await (const line of memory.exportMemories()) if (line.kind === "memory") lines.push(line)
  return lines
}

try {
  const mem0File = join(dir, "mem0-export.json")
  await writeMem0(mem0File)
  const first = await openMemory({ dataDir: join(dir, "first"), signingKey: benchSigningKey() })

  const mem0 = await timed("import of the Mem0 file", () =>
    first.importMemories(createReadStream(mem0File), { format: "mem0" })
  )
  const again = await timed("the same file again", () =>
    first.importMemories(createReadStream(mem0File), { format: "mem0" })
  )

  const umoFile = join(dir, "umo-export.jsonl")
  const exportRun = await timed("export with vectors", async () => {
    const out = createWriteStream(umoFile)
    let memories = 0
    for await (const line of first.exportMemories({ embeddings: true })) {
      if (line.kind === "memory") memories++
      if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, "drain")
    }
    out.end()
    await finished(out)
    return memories
  })

  const second = await openMemory({ dataDir: join(dir, "second") })
  const copy = await timed("import of the export into another store", () =>
    second.importMemories(createReadStream(umoFile), { format: "umo" })
  )

  // The copy against the original, memory by memory.
  // A copy keeps its first origin (here the Mem0 id), as its original does.
  const originOf = (m: ExportedMemory) => m.imported_from?.id ?? m.umo_id
  const originals = new Map((await exported(first)).map((m) => [originOf(m), m]))
  const copies = await exported(second)
  const same = copies.filter((c) => {
    const o = originals.get(originOf(c))
    return (
      o !== undefined &&
      o.content_hash === c.content_hash &&
      o.user_id === c.user_id &&
      o.agent_id === c.agent_id &&
      o.session_id === c.session_id &&
      o.timestamp === c.timestamp &&
      JSON.stringify(o.metadata) === JSON.stringify(c.metadata)
    )
  }).length
  await Promise.all([first.close(), second.close()])
  clearInterval(sampler)

  const mb = (file: string) => Math.round((statSync(file).size / 2 ** 20) * 10) / 10
  const results = {
    quick,
    machine: machine(),
    memories: size,
    mem0_import: {
      file_mb: mb(mem0File),
      imported: mem0.result.imported,
      failed: mem0.result.failed,
      seconds: Math.round(mem0.seconds),
      memories_per_second: perSecond(mem0.result.imported, mem0.seconds)
    },
    mem0_import_again: {
      imported: again.result.imported,
      already_imported: again.result.alreadyImported,
      seconds: Math.round(again.seconds * 10) / 10,
      lines_per_second: perSecond(again.result.lines, again.seconds)
    },
    export: {
      file_mb: mb(umoFile),
      memories: exportRun.result,
      seconds: Math.round(exportRun.seconds * 10) / 10,
      memories_per_second: perSecond(exportRun.result, exportRun.seconds)
    },
    umo_import: {
      imported: copy.result.imported,
      verified: copy.result.verified,
      failed: copy.result.failed,
      complete: copy.result.complete,
      seconds: Math.round(copy.seconds * 10) / 10,
      memories_per_second: perSecond(copy.result.imported, copy.seconds)
    },
    round_trip: { originals: originals.size, copies: copies.length, identical: same },
    peak_rss_mb: Math.round(peakRss / 2 ** 20)
  }
  console.log(JSON.stringify(results, null, 2))

  const table = [
    `${size.toLocaleString("en")} memories, \`openMemory\` with the default embedder (all-mpnet-base-v2 int8), PGlite; peak RSS of the whole run ${results.peak_rss_mb} MB.`,
    "",
    "| step | memories | time | memories/s | file |",
    "|---|---:|---:|---:|---:|",
    `| import of a Mem0 \`get_all\` JSON (pipeline + embedding) | ${results.mem0_import.imported.toLocaleString("en")} | ${results.mem0_import.seconds} s | ${results.mem0_import.memories_per_second} | ${results.mem0_import.file_mb} MB |`,
    `| the same file again (resumed: nothing stored twice) | ${results.mem0_import_again.imported} new, ${results.mem0_import_again.already_imported.toLocaleString("en")} already in | ${results.mem0_import_again.seconds} s | ${results.mem0_import_again.lines_per_second} | |`,
    `| export with vectors (JSON Lines) | ${results.export.memories.toLocaleString("en")} | ${results.export.seconds} s | ${results.export.memories_per_second} | ${results.export.file_mb} MB |`,
    `| import of that export into another store (proofs checked, vectors reused) | ${results.umo_import.imported.toLocaleString("en")} (${results.umo_import.verified.toLocaleString("en")} verified) | ${results.umo_import.seconds} s | ${results.umo_import.memories_per_second} | |`,
    "",
    `Round trip: ${results.round_trip.identical.toLocaleString("en")} of ${results.round_trip.originals.toLocaleString("en")} copies identical to their original (content hash, scope, metadata, timestamp).`
  ].join("\n")
  publishResults(
    root,
    "transfers",
    results,
    barChart({
      title: `Memories in and out (${size.toLocaleString("en")} memories): memories per second`,
      yLabel: "memories/s",
      categories: ["Mem0 import", "export", "UMO import"],
      series: [
        {
          name: "memories/s",
          values: [
            results.mem0_import.memories_per_second,
            results.export.memories_per_second,
            results.umo_import.memories_per_second
          ]
        }
      ]
    }),
    table
  )
} finally {
  clearInterval(sampler)
  rmSync(dir, { recursive: true, force: true })
}
