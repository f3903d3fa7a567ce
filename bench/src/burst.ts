/**
 * Search right after a burst of captures (the issue "no slow path after a burst"): the in-process
 * index follows the account's chain on each search, and one more than `backlog` (1,000) entries
 * behind stops serving, catches up in the background and meanwhile leaves the searches to the
 * database. The real server (PGlite, a fresh data directory, one account) first takes 100
 * memories and a few searches, untimed (the account's index is loaded and serving, the code warm),
 * then a burst of N more memories through `POST /v1/batch` (100 items a call, 2 calls in flight)
 * as fast as it takes them, while `GET /health` is polled every 50 ms and searches run one at a
 * time spread over the burst; then 100 searches from the moment the last batch is acknowledged,
 * then, once the index serves again and reports nothing loading, 100 more (the steady state).
 * Every search asks a LoCoMo question asked in no other search (the server keeps query vectors).
 * Reported per run: server p50 / p95 / p99 (`Server-Timing` `app`), the query embedding's p95
 * (`embed`), which path served each search (`sync;desc=index|database`), the ratio of the first
 * 100's server p95 to the steady state's (target ≤ 2), `/health` during the burst (target p99 ≤
 * 50 ms), capture throughput, the server's RSS and the machine's load average at start and end.
 *
 *   npm run bench:burst                                # 5,000 memories, run labelled "current"
 *   npm run bench:burst -- --quick                     # 1,500 memories
 *   npm run bench:burst -- --memories 3000 --label after
 *   npm run bench:burst -- --searches-during 0         # no searches during the burst (the index falls behind it all)
 *   npm run bench:burst -- --render-only               # the table, chart and README section again, from the results
 *   npm run bench:burst -- --server-root DIR --server-commit C --label before   # the server of another checkout
 *
 * `--server-root` runs the server from another copy of the repository (e.g. `git archive C | tar -x
 * -C DIR` and a `node_modules` link to this one's), to measure the code before a change beside it;
 * the run records the commit (`git rev-parse` there, else `--server-commit`).
 *
 * A run replaces the earlier run of the same label (and searches during the burst) in
 * bench/results/burst.json (burst-quick.json for `--quick`) and keeps the others, so runs before
 * and after a change sit side by side.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { startServer } from "../../server/test/support/ServerProcess.js"
import { dataDir, load, memoryText } from "./recall/LoCoMo.js"
import { captureInBatches, itemsPerCall } from "./support/BatchCapture.js"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { seeded } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { publishResults, resultsFile } from "./support/Results.js"
import { percentile, round1 } from "./support/Stats.js"
import { timedSearch } from "./support/TimedSearch.js"

const memories = Number(argument("memories") ?? (quick ? 1_500 : 5_000))
const label = argument("label") ?? "current"
/** Searches spread over the burst, one at a time (fewer when the burst ends first). */
const searchesDuring = Number(argument("searches-during") ?? (quick ? 60 : 200))
const searchesAfter = 100
const searchesSteady = 100
const batchSize = itemsPerCall
const inFlight = 2
const healthEveryMs = 50
/** Memories captured before the burst, untimed: the account exists and its index serves. */
const primed = 100
const warmUpSearches = 5
/** Targets: the first 100's server p95 at most this many times the steady state's; `/health` p99 during the burst. */
const targetRatio = 2
const targetHealthP99Ms = 50
const apiKey = `umo_bench-burst-${"0".repeat(24)}`
const account = "burst-bench"
/** Where the server runs from: this checkout, or another (see the top). */
const serverRoot = argument("server-root") ?? root
const serverCommit = (() => {
  try {
    const head = execFileSync("git", ["-C", serverRoot, "rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"]
    }).trim()
    // Only this checkout's own files count: another's `node_modules` link makes no difference.
    const dirty = execFileSync(
      "git",
      ["-C", serverRoot, "status", "--porcelain", "core", "plugins", "memory", "server"],
      {
        encoding: "utf8"
      }
    ).trim()
    return `${head}${dirty === "" ? "" : " (modified)"}`
  } catch {
    return argument("server-commit") ?? null
  }
})()
/** The search that polls for the steady state: no measured question, so none is cached by it. */
const pollQuery = "what did they talk about"

const loadAverage = () => loadavg().map((x) => Math.round(x * 100) / 100)
const loadAtStart = loadAverage()

const { turns, questions } = load(dataDir(root))
const random = seeded(17)
// Drawn without replacement (a seeded Fisher-Yates shuffle of the distinct questions).
const distinctQuestions = [...new Set(questions.map((q) => q.question))]
for (let i = distinctQuestions.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1))
  ;[distinctQuestions[i], distinctQuestions[j]] = [distinctQuestions[j]!, distinctQuestions[i]!]
}
const needed = warmUpSearches + searchesDuring + searchesAfter + searchesSteady
if (distinctQuestions.length < needed)
  throw new Error(`${needed} distinct questions needed, LoCoMo has ${distinctQuestions.length}`)
const [warmUpQuestions, duringQuestions, afterQuestions, steadyQuestions] = [
  warmUpSearches,
  searchesDuring,
  searchesAfter,
  searchesSteady
].map((n, i, all) => {
  const from = all.slice(0, i).reduce((a, b) => a + b, 0)
  return distinctQuestions.slice(from, from + n)
}) as [Array<string>, Array<string>, Array<string>, Array<string>]

/**
 * The burst's items: LoCoMo turns in order, again with another source past the last turn (a
 * capture of the same text, source, scope and metadata answers with the memory already there,
 * and the chain would not grow).
 */
const item = (k: number, pass: string) => ({
  content: memoryText(turns[k % turns.length]!),
  source: `burst-${pass}${Math.floor(k / turns.length)}`
})
const primeItems = Array.from({ length: primed }, (_, k) => item(k, "prime-"))
const burstItems = Array.from({ length: memories }, (_, k) => item(k, ""))

interface Searched {
  readonly ms: number
  readonly server: number
  readonly embed: number
  readonly servedBy: string
  /** Every `Server-Timing` stage but `app`, ms. */
  readonly stages: ReadonlyArray<{ readonly name: string; readonly ms: number }>
  /** When it started (`performance.now()`). */
  readonly started: number
}

/** One search through the API, with the stages of its `Server-Timing`. */
const search = async (baseUrl: string, query: string) => {
  const { started, ms, timing, servedBy } = await timedSearch(baseUrl, apiKey, query)
  return {
    started,
    ms,
    server: timing.find((t) => t.name === "app")?.ms ?? Number.NaN,
    embed: timing.find((t) => t.name === "embed")?.ms ?? Number.NaN,
    servedBy,
    stages: timing.filter((t) => t.name !== "app").map((t) => ({ name: t.name, ms: t.ms }))
  }
}

const stats = (xs: ReadonlyArray<number>) => {
  const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  return {
    p50: round1(percentile(sorted, 0.5)),
    p95: round1(percentile(sorted, 0.95)),
    p99: round1(percentile(sorted, 0.99)),
    max: round1(sorted.at(-1) ?? 0)
  }
}

const countBy = (xs: ReadonlyArray<Searched>) => {
  const counts: Record<string, number> = {}
  for (const x of xs) counts[x.servedBy] = (counts[x.servedBy] ?? 0) + 1
  return counts
}

/** A phase's searches summed up: percentiles, paths, and where the database served (ordinal, s after the burst). */
const summary = (xs: ReadonlyArray<Searched>, burstEnd: number) => {
  const server = stats(xs.map((x) => x.server))
  const embed = stats(xs.map((x) => x.embed))
  const database = xs.flatMap((x, i) =>
    x.servedBy === "index" ? [] : [{ i, s: round1((x.started - burstEnd) / 1000) }]
  )
  return {
    searches: xs.length,
    server_ms: server,
    embed_ms: embed,
    end_to_end_ms: stats(xs.map((x) => x.ms)),
    server_p95_to_embed_p95: embed.p95 > 0 ? Math.round((100 * server.p95) / embed.p95) / 100 : null,
    served_by: countBy(xs),
    stages_ms: Object.fromEntries(
      [...new Set(xs.flatMap((x) => x.stages.map((t) => t.name)))].map((name) => [
        name,
        stats(xs.flatMap((x) => x.stages.filter((t) => t.name === name).map((t) => t.ms)))
      ])
    ),
    not_by_index:
      database.length === 0
        ? null
        : {
            count: database.length,
            searches: database.map((d) => d.i),
            first_s_after_burst: database[0]!.s,
            last_s_after_burst: database.at(-1)!.s
          }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One run: the server started, primed, the burst and the searches, the server stopped. */
const measure = async (): Promise<Record<string, unknown>> => {
  progress("burst: starting the server")
  const server = await startServer(
    serverRoot,
    { [apiKey]: account },
    {
      UMO_SIGNING_KEY: benchSigningKey(),
      // Another checkout has no models of its own (fetch-models puts them in this one's).
      ...(serverRoot === root ? {} : { UMO_MODELS_DIR: process.env.UMO_MODELS_DIR ?? join(root, "models") })
    }
  )
  const { baseUrl } = server
  try {
    // The account's first memories and searches, untimed: its index loads (inline, it is small)
    // and serves, the server's code and the embedder are warm, as on a server in use.
    progress("burst: priming the account")
    const primeStarted = performance.now()
    await captureInBatches(baseUrl, apiKey, primeItems)
    /** Memories a millisecond the priming batch went at: the burst's rate until its first acknowledgement. */
    const primeRate = primed / (performance.now() - primeStarted)
    for (const q of warmUpQuestions) await search(baseUrl, q)
    const rssBefore = server.rssMb()

    let burstEnd: number | undefined
    const sinceEnd = (t: number) => t - (burstEnd ?? Number.POSITIVE_INFINITY)
    const during: Array<Searched> = []

    // `GET /health` every 50 ms (from the start of one poll to the next, none overlapping), with the
    // index's state it reports: from the burst's start until the steady state is measured.
    type Poll = { at: number; ms: number; ok: boolean; loading: number; serving: number }
    const polls: Array<Poll> = []
    let polling = true
    const poller = (async () => {
      while (polling) {
        const started = performance.now()
        const poll = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) }).then(
          async (r) => {
            const body = (await r.json()) as { index?: { loading: number; serving: number } }
            return { ok: r.ok, loading: body.index?.loading ?? -1, serving: body.index?.serving ?? -1 }
          },
          () => ({ ok: false, loading: -1, serving: -1 })
        )
        const ms = performance.now() - started
        polls.push({ at: started, ms, ...poll })
        await sleep(Math.max(0, healthEveryMs - ms))
      }
    })()

    // The burst: batches of 100 from a queue, two calls in flight.
    const burstStart = performance.now()
    let acknowledged = 0
    const capturing = (async () => {
      await captureInBatches(baseUrl, apiKey, burstItems, {
        inFlight,
        onAcknowledged: (items) => {
          acknowledged += items
          progress(`burst: ${acknowledged}/${memories} captured, ${during.length} searches`)
        }
      })
      burstEnd = performance.now()
    })()

    // Searches spread over the burst: the i-th when i / searchesDuring of the burst's expected
    // length has passed (its rate so far; before the first acknowledgement, the priming batch's).
    const searching = (async () => {
      for (let i = 0; i < searchesDuring && burstEnd === undefined; i++) {
        for (;;) {
          if (burstEnd !== undefined) return
          const elapsed = performance.now() - burstStart
          const rate = acknowledged > 0 ? acknowledged / elapsed : primeRate
          const due = (i * memories) / rate / searchesDuring
          if (elapsed >= due) break
          await sleep(Math.min(100, due - elapsed))
        }
        during.push(await search(baseUrl, duringQuestions[i]!))
      }
    })()

    await capturing
    const captureSeconds = (burstEnd! - burstStart) / 1000
    const rssAtBurstEnd = server.rssMb()
    // A search under way when the burst ended is let finish: the next ones are one at a time too.
    await searching
    const afterStartedMs = Math.round(performance.now() - burstEnd!)

    const after: Array<Searched> = []
    for (const [i, q] of afterQuestions.entries()) {
      after.push(await search(baseUrl, q))
      progress(`burst: right after, ${i + 1}/${searchesAfter} searches`)
    }
    const afterEnd = performance.now()

    // The steady state: nothing loading or catching up, and a search served by the index.
    const waitStarted = performance.now()
    let waitPolls = 0
    for (;;) {
      waitPolls++
      const health = (await (await fetch(`${baseUrl}/health`)).json()) as {
        index: { loading: number; serving: number }
      }
      if (health.index.loading === 0 && health.index.serving > 0) {
        const { servedBy } = await search(baseUrl, pollQuery)
        if (servedBy === "index") break
      }
      if (performance.now() - waitStarted > 600_000)
        throw new Error("the index did not serve again in 10 minutes")
      progress(
        `burst: waiting for the steady state (${Math.round((performance.now() - waitStarted) / 1000)} s)`
      )
      await sleep(500)
    }
    const steadyWaitMs = Math.round(performance.now() - waitStarted)
    const steady: Array<Searched> = []
    for (const [i, q] of steadyQuestions.entries()) {
      steady.push(await search(baseUrl, q))
      progress(`burst: steady state, ${i + 1}/${searchesSteady} searches`)
    }
    polling = false
    await poller
    const rssAfter = server.rssMb()

    const healthOf = (ps: ReadonlyArray<Poll>) => ({
      polls: ps.length,
      failed: ps.filter((p) => !p.ok).length,
      ms: stats(ps.map((p) => p.ms))
    })
    const loadingSeen = polls.filter((p) => p.loading > 0)
    const first = summary(after, burstEnd!)
    const last = summary(steady, burstEnd!)
    const result: Record<string, unknown> = {
      label,
      server_commit: serverCommit,
      searches_during_burst: searchesDuring,
      quick,
      memories,
      batch_size: batchSize,
      batches_in_flight: inFlight,
      primed_memories: primed,
      measured: new Date().toISOString(),
      machine: machine(),
      load_average_1_5_15: { start: loadAtStart, end: loadAverage() },
      capture: {
        seconds: round1(captureSeconds),
        memories_per_second: round1(memories / captureSeconds)
      },
      health_during_burst: healthOf(polls.filter((p) => burstEnd === undefined || p.at < burstEnd)),
      health_right_after: healthOf(polls.filter((p) => p.at >= burstEnd! && p.at < afterEnd)),
      index_loading_seen_s_after_burst:
        loadingSeen.length === 0
          ? null
          : {
              first: round1(sinceEnd(loadingSeen[0]!.at) / 1000),
              last: round1(sinceEnd(loadingSeen.at(-1)!.at) / 1000),
              polls: loadingSeen.length
            },
      during_burst: summary(during, burstEnd!),
      right_after: { ...first, started_ms_after_burst: afterStartedMs },
      steady: { ...last, waited_ms: steadyWaitMs, wait_polls: waitPolls },
      first_to_steady_server_p95:
        last.server_ms.p95 > 0 ? Math.round((100 * first.server_ms.p95) / last.server_ms.p95) / 100 : null,
      server_rss_mb: { before_burst: rssBefore, burst_end: rssAtBurstEnd, end: rssAfter }
    }
    process.stderr.write("\n")
    console.log(JSON.stringify(result, null, 2))
    return result
  } finally {
    await server.stop()
  }
}

/** `--render-only`: the table, chart and README section again from the results file, nothing measured. */
const result = process.argv.includes("--render-only") ? undefined : await measure()

// Runs of other labels stay; one of the same label and searches during the burst is replaced.
const file = resultsFile(root, "burst", quick, "json")
const key = (r: Record<string, unknown>) => `${r.label} ${r.searches_during_burst}`
const previous = existsSync(file)
  ? (JSON.parse(readFileSync(file, "utf8")).runs as Array<Record<string, unknown>>).filter(
      (r) => result === undefined || key(r) !== key(result)
    )
  : []
// Grouped by how many searches ran during the burst (most first), in the order measured within.
const runs = [...previous, ...(result === undefined ? [] : [result])].sort(
  (a, b) => (b.searches_during_burst as number) - (a.searches_during_burst as number)
)

type Figures = ReturnType<typeof summary>
type Percentiles = ReturnType<typeof stats>
const paths = (f: Figures) => `${f.served_by.index ?? 0} / ${f.searches - (f.served_by.index ?? 0)}`
const where = (f: Figures) =>
  f.not_by_index === null
    ? "–"
    : `${f.not_by_index.count}, searches ${f.not_by_index.searches[0]}–${f.not_by_index.searches.at(-1)}, ${f.not_by_index.first_s_after_burst}–${f.not_by_index.last_s_after_burst} s after the burst`
const bold = (x: number | null, met: boolean) => (x === null ? "–" : met ? `**${x}**` : `${x}`)
const runName = (r: Record<string, unknown>) =>
  `${r.label}${r.server_commit ? ` (${r.server_commit})` : ""}${r.searches_during_burst === 0 ? ", no searches during the burst" : ""}`
const table = [
  `Each row is one run: one account, ${primed} memories and ${warmUpSearches} searches first (untimed), then a burst of the given memories through \`POST /v1/batch\` (${batchSize} a call, ${inFlight} in flight) while \`GET /health\` is polled every ${healthEveryMs} ms and searches run one at a time spread over it; then ${searchesAfter} searches from the last batch's acknowledgement, then ${searchesSteady} once the index serves again with nothing loading. Every search is a LoCoMo question asked once. Targets (bold when met): first ${searchesAfter}'s server p95 ≤ ${targetRatio} × the steady state's; \`/health\` p99 during the burst ≤ ${targetHealthP99Ms} ms.`,
  "",
  "| run | memories | capture memories/s | `/health` during the burst p50 / p95 / p99 / max ms (polls) | searches during the burst: server p50 / p95 ms, index / database | first searches after: server p50 / p95 / p99 ms | embed p95 | server / embed p95 | index / database | steady: server p50 / p95 / p99 ms | embed p95 | server / embed p95 | index / database | first / steady server p95 | server RSS MB at the end | load average at start / end |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ...runs.map((r) => {
    const h = r.health_during_burst as { polls: number; ms: Percentiles }
    const d = r.during_burst as Figures
    const a = r.right_after as Figures
    const s = r.steady as Figures
    const ratio = r.first_to_steady_server_p95 as number | null
    const load = r.load_average_1_5_15 as { start: Array<number>; end: Array<number> }
    return `| ${runName(r)} | ${(r.memories as number).toLocaleString("en")} | ${(r.capture as { memories_per_second: number }).memories_per_second} | ${h.ms.p50} / ${h.ms.p95} / ${bold(h.ms.p99, h.ms.p99 <= targetHealthP99Ms)} / ${h.ms.max} (${h.polls}) | ${d.searches === 0 ? "–" : `${d.server_ms.p50} / ${d.server_ms.p95}, ${paths(d)}`} | ${a.server_ms.p50} / ${a.server_ms.p95} / ${a.server_ms.p99} | ${a.embed_ms.p95} | ${a.server_p95_to_embed_p95} | ${paths(a)} | ${s.server_ms.p50} / ${s.server_ms.p95} / ${s.server_ms.p99} | ${s.embed_ms.p95} | ${s.server_p95_to_embed_p95} | ${paths(s)} | ${bold(ratio, ratio !== null && ratio <= targetRatio)} | ${(r.server_rss_mb as { end: number }).end} | ${load.start[0]} / ${load.end[0]} |`
  }),
  "",
  "Searches not served by the index (count, which of the phase's searches, when):",
  "",
  "| run | during the burst | first searches after | steady |",
  "|---|---|---|---|",
  ...runs.map(
    (r) =>
      `| ${runName(r)} | ${where(r.during_burst as Figures)} | ${where(r.right_after as Figures)} | ${where(r.steady as Figures)} |`
  )
].join("\n")
console.log(table)

// Short names under the bars: the table has the commits.
const categories = runs.map(
  (r) => `${r.label}, ${r.searches_during_burst === 0 ? "none" : r.searches_during_burst} during`
)
const series = (pick: (r: Record<string, unknown>) => number) => categories.map((_, i) => pick(runs[i]!))
const results = {
  benchmark: "search right after a burst of captures",
  machine: machine(),
  quick,
  targets: {
    first_to_steady_server_p95: `<= ${targetRatio}`,
    health_p99_during_burst_ms: `<= ${targetHealthP99Ms}`
  },
  runs
}
publishResults(
  root,
  "burst",
  results,
  barChart({
    title: "Search right after a burst of captures: p95 per phase (ms)",
    yLabel: "ms",
    categories,
    series: [
      {
        name: "search server p95 during the burst",
        values: series((r) => (r.during_burst as Figures).server_ms.p95)
      },
      {
        name: `search server p95, first ${searchesAfter} after`,
        values: series((r) => (r.right_after as Figures).server_ms.p95)
      },
      { name: "search server p95, steady state", values: series((r) => (r.steady as Figures).server_ms.p95) },
      {
        name: "query embedding p95, steady state",
        values: series((r) => (r.steady as Figures).embed_ms.p95)
      },
      {
        name: "/health p99 during the burst",
        values: series((r) => (r.health_during_burst as { ms: Percentiles }).ms.p99)
      }
    ],
    reference: { value: targetHealthP99Ms, label: `/health p99 target ${targetHealthP99Ms} ms` }
  }),
  table
)
