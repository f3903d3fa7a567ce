/**
 * A big capture under way, and everyone else: the time to capture one long text (50,000
 * characters through `POST /v1/memories`) and one long document (1,000,000 characters through
 * `POST /v1/upload`), end to end, while one client polls `GET /health` every 20 ms and another
 * searches the account again and again — their latency p50 / p95 / p99 during the capture, beside
 * the same with the server idle. The texts are LoCoMo dialogue, one turn a line, repeated to length.
 *
 *   npm run bench:responsiveness              # 50,000 and 1,000,000 characters, PGlite
 *   npm run bench:responsiveness -- --quick   # 20,000 and 100,000 characters
 */
import { startServer } from "../../server/test/support/ServerProcess.js"
import { dataDir, load, memoryText } from "./recall/LoCoMo.js"
import { captureInBatches } from "./support/BatchCapture.js"
import { barChart } from "./support/Chart.js"
import { benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"
import { percentile, round1 } from "./support/Stats.js"

const apiKey = `umo_bench-responsive-${"0".repeat(24)}`
const { turns, questions } = load(dataDir(root))
const dialogue = turns.map(memoryText).join("\n")
const textOf = (length: number) => dialogue.repeat(Math.ceil(length / dialogue.length)).slice(0, length)
const cases = [
  { name: "text", characters: quick ? 20_000 : 50_000 },
  { name: "document", characters: quick ? 100_000 : 1_000_000 }
] as const

const stats = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: round1(percentile(sorted, 0.5)),
    p95: round1(percentile(sorted, 0.95)),
    p99: round1(percentile(sorted, 0.99))
  }
}

const timedFetch = async (url: string, init?: RequestInit) => {
  const started = performance.now()
  const response = await fetch(url, init).catch((e: Error & { cause?: { code?: string } }) => {
    throw new Error(
      `${init?.method ?? "GET"} ${url} failed after ${Math.round(performance.now() - started)} ms: ${e.cause?.code ?? e.message}`
    )
  })
  await response.arrayBuffer()
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return performance.now() - started
}

const server = await startServer(root, { [apiKey]: "responsiveness" }, { UMO_SIGNING_KEY: benchSigningKey() })
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
/** Which path served each search (`Server-Timing`'s `sync;desc=index|database`), counted. */
const servedBy: Record<string, number> = {}
const search = async (i: number) => {
  const started = performance.now()
  const response = await fetch(`${server.baseUrl}/v1/memories/query`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query: questions[i % questions.length]!.question, limit: 10 })
  })
  await response.arrayBuffer()
  if (!response.ok) throw new Error(`search answered ${response.status}`)
  const path =
    /sync;dur=[\d.]+;desc=([\w-]+)/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? "unknown"
  servedBy[path] = (servedBy[path] ?? 0) + 1
  return performance.now() - started
}

/** The text as a file upload (multipart). */
const upload = (text: string) => {
  const form = new FormData()
  form.append("file", new Blob([text], { type: "text/plain" }), "dialogue.txt")
  return form
}

/** Polls /health every 20 ms and searches back to back while `work` runs; the latencies seen meanwhile. */
const alongside = async (work: () => Promise<unknown>) => {
  const health: Array<number> = []
  const searches: Array<number> = []
  let running = true
  const polling = (async () => {
    while (running) {
      health.push(await timedFetch(`${server.baseUrl}/health`))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const searching = (async () => {
    for (let i = 0; running; i++) searches.push(await search(i))
  })()
  const started = performance.now()
  await work()
  const seconds = (performance.now() - started) / 1000
  running = false
  await Promise.all([polling, searching])
  const served = { ...servedBy }
  for (const path of Object.keys(servedBy)) delete servedBy[path]
  return {
    seconds: round1(seconds),
    health_ms: stats(health),
    search_ms: stats(searches),
    searches_served_by: served
  }
}

try {
  // Something to search, and the model loaded: 300 turns in batches of 100.
  progress("responsiveness: capturing 300 turns to search")
  await captureInBatches(server.baseUrl, apiKey, turns.slice(0, 300).map(memoryText))
  progress("responsiveness: idle")
  const idle = await alongside(() => new Promise((resolve) => setTimeout(resolve, 15_000)))
  const runs = []
  for (const c of cases) {
    progress(`responsiveness: capturing a ${c.characters.toLocaleString("en")}-character ${c.name}`)
    const text = textOf(c.characters)
    const during = await alongside(() =>
      c.name === "text"
        ? timedFetch(`${server.baseUrl}/v1/memories`, {
            method: "POST",
            headers,
            body: JSON.stringify({ content: text, source: "responsiveness" })
          })
        : timedFetch(`${server.baseUrl}/v1/upload`, {
            method: "POST",
            headers: { authorization: headers.authorization },
            body: upload(text)
          })
    )
    runs.push({ capture: c.name, characters: c.characters, ...during })
  }
  process.stderr.write("\n")

  const paths = (r: typeof idle) =>
    Object.entries(r.searches_served_by)
      .map(([path, n]) => `${path} ${n}`)
      .join(", ")
  const row = (what: string, r: typeof idle) =>
    `| ${what} | ${r.seconds} | ${r.health_ms.p50} / ${r.health_ms.p99} (${r.health_ms.count}) | ${r.search_ms.p50} / ${r.search_ms.p95} (${r.search_ms.count}) | ${paths(r)} |`
  const table = [
    "| while | seconds | `/health` p50 / p99 ms (requests) | search p50 / p95 ms (requests) | searches served by |",
    "|---|---|---|---|---|",
    row("idle (15 s)", idle),
    ...runs.map((r) => row(`capturing a ${r.characters.toLocaleString("en")}-character ${r.capture}`, r))
  ].join("\n")
  console.log(table)
  const results = { benchmark: "responsiveness during a big capture", machine: machine(), quick, idle, runs }
  publishResults(
    root,
    "responsiveness",
    results,
    barChart({
      title: "Latency while a big capture runs, p99 health / p95 search (ms)",
      yLabel: "ms",
      categories: ["idle", ...runs.map((r) => `${r.characters / 1000}k chars`)],
      series: [
        { name: "/health p99", values: [idle, ...runs].map((r) => r.health_ms.p99) },
        { name: "search p95", values: [idle, ...runs].map((r) => r.search_ms.p95) }
      ],
      reference: { value: 50, label: "target 50 ms" }
    }),
    table
  )
} finally {
  await server.stop()
}
