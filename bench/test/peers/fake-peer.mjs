// A stand-in peer for the tests: speaks the drivers' JSON-lines protocol (bench/peers/driver_common.py),
// stores nothing real and records what it was given in the drivers' manifest format.
// FAKE_PEER_MUTATE=1 makes it alter one memory text, as a peer that rewrote a memory would.
import { createHash } from "node:crypto"
import { createInterface } from "node:readline"

const sha = (text) => createHash("sha256").update(text, "utf8").digest("hex")
const memories = createHash("sha256")
const queries = createHash("sha256")
let memoryCount = 0
let queryCount = 0
const spaces = new Map()
let embedder = { model_dir: "", files: {}, weights_source: null }

const handlers = {
  init: (r) => {
    embedder = JSON.parse(process.env.FAKE_PEER_EMBEDDER ?? "null") ?? embedder
    return { system: "fake", versions: { fake: "1" }, config: { model_dir: r.model_dir }, pid: process.pid }
  },
  warm: () => ({}),
  add: (r) => {
    const docs = spaces.get(r.space) ?? []
    spaces.set(r.space, docs)
    const ids = r.items.map((item, i) => {
      const text = process.env.FAKE_PEER_MUTATE && docs.length + i === 0 ? `${item.text} ` : item.text
      memories.update(`${r.space}\t${sha(text)}\n`)
      memoryCount += 1
      docs.push({ id: `${r.space}#${docs.length}`, text })
      return docs[docs.length - 1].id
    })
    return { ids }
  },
  search: (r) => {
    queries.update(`${r.space}\t${r.limit}\t${sha(r.query)}\n`)
    queryCount += 1
    // Newest first: a ranking, not a good one.
    return {
      ids: (spaces.get(r.space) ?? [])
        .slice(-r.limit)
        .reverse()
        .map((d) => d.id)
    }
  },
  embed: (r) => ({ vectors: r.texts.map((t) => [t.length % 7, 1, 2]) }),
  stats: () => ({ rss_mb: 1, peak_rss_mb: 1, local_disk_mb: 0 }),
  manifest: () => ({
    manifest: {
      memories: { count: memoryCount, sha256: memories.copy().digest("hex") },
      queries: { count: queryCount, sha256: queries.copy().digest("hex") },
      embedder
    }
  })
}

const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (!line.trim()) continue
  const request = JSON.parse(line)
  if (request.cmd === "close") {
    process.stdout.write(`${JSON.stringify({ id: request.id, ok: true })}\n`)
    break
  }
  const handler = handlers[request.cmd]
  const answer = handler
    ? { id: request.id, ok: true, ...handler(request) }
    : { id: request.id, ok: false, error: `unknown command ${request.cmd}` }
  process.stdout.write(`${JSON.stringify(answer)}\n`)
}
