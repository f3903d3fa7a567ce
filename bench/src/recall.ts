/**
 * Recall quality on LoCoMo (five conversations, ../shared/bench-data/locomo): every turn is
 * captured through the public HTTP API (batch, one account per conversation), every question is
 * asked as a search query, and the ranked memories are mapped back to dialogue turns. Reported:
 * recall@1/5/10/25, hit@k and MRR per category, query latency, a BM25 baseline over the same turns,
 * and answer quality of `POST /v1/ask` (token F1, gold contained) on categories 1–4.
 *
 *   npm run bench:recall                                  # every embedder available, all questions
 *   npm run bench:recall -- --embedders minilm --conversations conv-26 --no-answers
 *   npm run bench:recall -- --embedders mpnet --answer-models umo-extractive,smollm2-135m-instruct --answer-every 4
 *   npm run bench:recall -- --embedders mpnet --no-answers --dump-ranked /tmp/ranked.json
 *   npm run bench:recall -- --embedders mpnet --no-answers --search-paths index,database
 *
 * `--search-paths index,database` runs the retrieval part twice per embedder: searches served by
 * the in-process index (the default) and by the database (`UMO_SEARCH_INDEX=false`), and writes
 * bench/results/recall-paths.json (and its table in bench/README.md): recall of both and every
 * question whose recall@5 differs. Answers are asked on the first path only.
 *
 * The full run writes bench/results/recall.json, bench/results/recall.svg and the table in
 * bench/README.md; a partial run only prints them. The answers are a result of their own: any run
 * that asks them over every conversation (`--answer-models`, `--answer-every` included) writes
 * bench/results/answers.json, answers.svg and the answers table in bench/README.md.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { startServer } from "../../server/test/support/ServerProcess.js"
import * as Bm25 from "./recall/Bm25.js"
import { categoryNames, dataDir, load, memoryText, type Question, turnTime } from "./recall/LoCoMo.js"
import {
  type ByCategory,
  byCategory,
  containsGold,
  ks,
  type RankedQuestion,
  tokenF1
} from "./recall/Metrics.js"
import { barChart } from "./support/Chart.js"
import { argument, modelsDir, progress, root } from "./support/Cli.js"
import { machine } from "./support/Machine.js"
import { writeReadmeSection } from "./support/Readme.js"
import { p50p95, round1 } from "./support/Stats.js"

interface EmbedderRun {
  readonly id: string
  readonly label: string
  readonly env: Record<string, string>
  readonly available: boolean
}

const transformers = (id: string, label: string, model: string, precision: "int8" | "fp32"): EmbedderRun => ({
  id,
  label,
  env: {
    UMO_EMBEDDER: "transformers",
    UMO_MODELS_DIR: modelsDir,
    UMO_EMBEDDER_MODEL: model,
    UMO_EMBEDDER_PRECISION: precision
  },
  available: existsSync(
    join(modelsDir, model, "onnx", precision === "fp32" ? "model.onnx" : "model_int8.onnx")
  )
})

const minilm = "sentence-transformers/all-MiniLM-L6-v2"
const mpnet = "sentence-transformers/all-mpnet-base-v2"
const allEmbedders: ReadonlyArray<EmbedderRun> = [
  { id: "use-lite", label: "USE lite, 512d", env: { UMO_EMBEDDER: "use-lite" }, available: true },
  transformers("minilm", "all-MiniLM-L6-v2, 384d, int8", minilm, "int8"),
  transformers("minilm-fp32", "all-MiniLM-L6-v2, 384d, fp32", minilm, "fp32"),
  transformers("mpnet", "all-mpnet-base-v2, 768d, int8 (default)", mpnet, "int8"),
  transformers("mpnet-fp32", "all-mpnet-base-v2, 768d, fp32", mpnet, "fp32")
]

const chosen = argument("embedders")?.split(",")
const embedders = allEmbedders.filter((e) => (chosen ? chosen.includes(e.id) : e.available))
const conversationsArg = argument("conversations")?.split(",")
const withAnswers = !process.argv.includes("--no-answers")
// The answer models asked (default: every local model the server has installed), with the first
// embedder only; every n-th question for a quick look.
const answerModelsArg = argument("answer-models")?.split(",")
const answerEvery = Number(argument("answer-every") ?? 1)
// Which path serves the searches: the in-process index (the server's default) and/or the database.
const searchPaths = (argument("search-paths")?.split(",") ?? ["index"]) as Array<"index" | "database">
if (searchPaths.some((p) => p !== "index" && p !== "database")) {
  console.error("bench:recall: --search-paths takes index and/or database")
  process.exit(1)
}
const partial =
  chosen !== undefined ||
  conversationsArg !== undefined ||
  !withAnswers ||
  answerEvery !== 1 ||
  answerModelsArg !== undefined

const { turns, questions: allQuestions } = load(dataDir(root))
const conversations = [...new Set(turns.map((t) => t.conv_id))].filter(
  (c) => !conversationsArg || conversationsArg.includes(c)
)
const questions = allQuestions.filter((q) => conversations.includes(q.conv_id) && q.evidence.length > 0)
const keyOf = (conv: string) => `umo_bench-${conv}-${"0".repeat(24)}`

/** The BM25 baseline over each conversation's turns. */
const baseline = (): Array<RankedQuestion> => {
  const indexes = new Map(
    conversations.map((conv) => {
      const own = turns.filter((t) => t.conv_id === conv)
      return [conv, { ids: own.map((t) => t.dia_id), bm25: Bm25.index(own.map(memoryText)) }] as const
    })
  )
  return questions.map((q) => {
    const { ids, bm25 } = indexes.get(q.conv_id)!
    const scores = bm25.score(q.question)
    const ranked = ids.map((id, i) => ({ id, s: scores[i]! })).sort((a, b) => b.s - a.s)
    return { category: q.category, evidence: q.evidence, ranked: ranked.slice(0, 50).map((r) => r.id) }
  })
}

/** Which path served a search of the account of `apiKey` (`Server-Timing`'s `sync;desc=`). */
const servedBy = async (baseUrl: string, apiKey: string, query: string) => {
  const response = await fetch(`${baseUrl}/v1/memories/query`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 1 })
  })
  await response.arrayBuffer()
  return /sync;dur=[\d.]+;desc=([\w-]+)/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? "unknown"
}

const runEmbedder = async (embedder: EmbedderRun, path: "index" | "database") => {
  const keys = Object.fromEntries(conversations.map((c) => [keyOf(c), c]))
  const server = await startServer(
    root,
    keys,
    path === "database" ? { ...embedder.env, UMO_SEARCH_INDEX: "false" } : embedder.env
  )
  try {
    const clients = new Map(
      conversations.map((c) => [
        c,
        new UMOClient({ baseUrl: server.baseUrl, apiKey: keyOf(c), timeoutMs: 600_000 })
      ])
    )
    const diaOf = new Map<string, string>()
    const ingestStart = performance.now()
    for (const conv of conversations) {
      const own = turns.filter((t) => t.conv_id === conv)
      for (let i = 0; i < own.length; i += 100) {
        const slice = own.slice(i, i + 100)
        const items = slice.map((t) => ({
          content: memoryText(t),
          source: `locomo/${conv}`,
          timestamp: turnTime(t)
        }))
        const results = await clients.get(conv)!.batch(items)
        results.forEach((r, j) => {
          if (!r.success || !r.umoId) throw new Error(`${conv} ${slice[j]?.dia_id}: ${r.error?.detail}`)
          diaOf.set(r.umoId, slice[j]!.dia_id)
        })
        progress(`${embedder.id}: captured ${diaOf.size} turns`)
      }
    }
    const ingestSeconds = (performance.now() - ingestStart) / 1000

    // Before the questions (a question is never asked twice here): what serves each account's searches.
    const paths: Record<string, string> = {}
    for (const conv of conversations) paths[conv] = await servedBy(server.baseUrl, keyOf(conv), "hello")
    const latencies: Array<number> = []
    const ranked: Array<RankedQuestion> = []
    for (const [i, q] of questions.entries()) {
      const started = performance.now()
      const matches = await clients.get(q.conv_id)!.ask(q.question, { limit: 50 })
      latencies.push(performance.now() - started)
      ranked.push({
        category: q.category,
        evidence: q.evidence,
        ranked: matches.map((m) => diaOf.get(m.umoId) ?? "?")
      })
      if (i % 20 === 0) progress(`${embedder.id}: searched ${i + 1}/${questions.length}`)
    }
    // The ranked turns per question, for studying a ranking change offline (a reranker, say).
    const dump = argument("dump-ranked")
    if (dump) {
      const rows = questions.map((q, i) => ({ conv_id: q.conv_id, question: q.question, ...ranked[i] }))
      writeFileSync(dump, `${JSON.stringify({ embedder: embedder.id, rows })}\n`)
    }

    const answers = []
    if (withAnswers && path === searchPaths[0]) {
      const offered = (await clients.values().next().value!.models()).local
      const asked =
        embedder === embedders[0]
          ? (answerModelsArg ?? offered.filter((m) => m.available).map((m) => m.id))
          : offered.filter((m) => m.isDefault).map((m) => m.id)
      for (const model of asked) answers.push(await answerQuality(embedder, clients, model))
    }
    return {
      embedder: embedder.id,
      label: path === "index" ? embedder.label : `${embedder.label}, database path`,
      search_path: path,
      served_by: paths,
      ranked,
      ingest: {
        turns: diaOf.size,
        seconds: round1(ingestSeconds),
        per_second: round1(diaOf.size / ingestSeconds)
      },
      latency_ms: p50p95(latencies),
      retrieval: byCategory(ranked),
      answers
    }
  } finally {
    await server.stop()
  }
}

/** `POST /v1/ask` with `model` on categories 1–4, which have gold answers. */
const answerQuality = async (
  embedder: EmbedderRun,
  clients: ReadonlyMap<string, UMOClient>,
  model: string
) => {
  const answerable = questions.filter(
    (q, i): q is Question & { answer: string | number } =>
      q.category <= 4 && q.answer !== undefined && i % answerEvery === 0
  )
  const rows: Array<{ category: number; f1: number; contains: boolean; confidence: number }> = []
  const latencies: Array<number> = []
  for (const [i, q] of answerable.entries()) {
    const started = performance.now()
    const answer = await clients.get(q.conv_id)!.answer(q.question, { model })
    latencies.push(performance.now() - started)
    rows.push({
      category: q.category,
      f1: tokenF1(String(q.answer), answer.text),
      contains: containsGold(String(q.answer), answer.text),
      confidence: answer.confidence
    })
    if (i % 20 === 0) progress(`${embedder.id}, ${model}: answered ${i + 1}/${answerable.length}`)
  }
  const summary = (subset: ReadonlyArray<(typeof rows)[number]>) => ({
    questions: subset.length,
    f1: round1((100 * subset.reduce((s, r) => s + r.f1, 0)) / Math.max(1, subset.length)),
    contains_gold: round1((100 * subset.filter((r) => r.contains).length) / Math.max(1, subset.length))
  })
  return {
    model,
    latency_ms: p50p95(latencies),
    // Calibration: how often a sure answer holds the gold one, against an unsure one.
    calibration: {
      "confidence >= 0.8": summary(rows.filter((r) => r.confidence >= 0.8)),
      "0.5 <= confidence < 0.8": summary(rows.filter((r) => r.confidence >= 0.5 && r.confidence < 0.8)),
      "confidence < 0.5": summary(rows.filter((r) => r.confidence < 0.5))
    },
    all: summary(rows),
    categories: Object.fromEntries(
      [1, 2, 3, 4].map((c) => [String(c), summary(rows.filter((r) => r.category === c))])
    ) as Record<"1" | "2" | "3" | "4", ReturnType<typeof summary>>
  }
}

const measured: Array<Awaited<ReturnType<typeof runEmbedder>>> = []
for (const embedder of embedders)
  for (const path of searchPaths) measured.push(await runEmbedder(embedder, path))
const runs = measured.map(({ ranked: _, ...run }) => run)
const bm25 = byCategory(baseline())
process.stderr.write("\n")

const results = {
  benchmark: "LoCoMo recall (five conversations)",
  date: new Date().toISOString().slice(0, 10),
  machine: machine(),
  data: {
    conversations,
    turns: turns.filter((t) => conversations.includes(t.conv_id)).length,
    questions: questions.length
  },
  ranking: "defaults (memory/src/recall/Ranking.ts) unless UMO_RANK_* is set",
  ranking_overrides: Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k.startsWith("UMO_RANK_"))
  ),
  bm25_baseline: { parameters: { k1: 1.2, b: 0.75, stop_words: true }, retrieval: bm25 },
  runs
}

const row = (name: string, r: ByCategory, extra = "") =>
  `| ${name} | ${ks.map((k) => r.all.recall[k].toFixed(1)).join(" | ")} | ${r.all.mrr.toFixed(3)} | ${[
    1, 2, 3, 4, 5
  ]
    .map((c) => r[String(c) as keyof ByCategory].recall[5].toFixed(1))
    .join(" | ")} | ${extra} |`
const table = [
  `| retriever | R@1 | R@5 | R@10 | R@25 | MRR | R@5 ${[1, 2, 3, 4, 5].map((c) => categoryNames[c]).join(" | R@5 ")} | query p50 / p95 ms |`,
  `|---|---|---|---|---|---|---|---|---|---|---|---|`,
  row("BM25 baseline (same turns)", bm25, "–"),
  ...runs.map((r) => row(`UMO, ${r.label}`, r.retrieval, `${r.latency_ms.p50} / ${r.latency_ms.p95}`))
].join("\n")
const answerTable = [
  "| embedder | answer model | F1 all | contains gold, all | F1 / contains multi-hop | F1 / contains temporal | F1 / contains open-domain | F1 / contains single-hop | contains gold at confidence ≥ 0.8 / < 0.5 (questions) | answer p50 / p95 ms |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...runs.flatMap((r) =>
    r.answers.map((a) => {
      const cell = (c: "1" | "2" | "3" | "4") =>
        `${a.categories[c].f1.toFixed(1)} / ${a.categories[c].contains_gold.toFixed(1)}`
      const sure = a.calibration["confidence >= 0.8"]
      const unsure = a.calibration["confidence < 0.5"]
      return `| ${r.label} | ${a.model} | ${a.all.f1.toFixed(1)} | ${a.all.contains_gold.toFixed(1)} | ${cell("1")} | ${cell("2")} | ${cell("3")} | ${cell("4")} | ${sure.contains_gold.toFixed(1)} (${sure.questions}) / ${unsure.contains_gold.toFixed(1)} (${unsure.questions}) | ${a.latency_ms.p50} / ${a.latency_ms.p95} |`
    })
  )
].join("\n")
console.log(`${table}\n\n${answerTable}`)

// The answer models (every conversation, with the first embedder; every question, or every n-th
// as recorded) are a result of their own, even when only that embedder ran: bench/results/answers.json.
if (withAnswers && conversationsArg === undefined && runs[0]) {
  const out = join(root, "bench", "results")
  mkdirSync(out, { recursive: true })
  const first = runs[0]
  writeFileSync(
    join(out, "answers.json"),
    `${JSON.stringify({ benchmark: "LoCoMo answers (categories 1–4)", date: results.date, machine: results.machine, embedder: first.label, questions_asked: answerEvery === 1 ? "all" : `every ${answerEvery}th`, settings: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("UMO_ASK_") || k.startsWith("UMO_RERANK"))), answers: first.answers }, null, 2)}\n`
  )
  const chart = barChart({
    title: `LoCoMo answers, ${first.answers[0]?.all.questions ?? 0} questions (categories 1–4), ${first.label}`,
    yLabel: "token F1 (%)",
    categories: ["all", ...[1, 2, 3, 4].map((c) => categoryNames[c]!)],
    series: first.answers.map((a) => ({
      name: `${a.model} (p95 ${(a.latency_ms.p95 / 1000).toFixed(1)} s)`,
      values: [a.all.f1, ...(["1", "2", "3", "4"] as const).map((c) => a.categories[c].f1)]
    })),
    yMax: 100,
    reference: { value: 25, label: "goal: default model F1 = 25" }
  })
  writeFileSync(join(out, "answers.svg"), chart)
  writeReadmeSection(root, "answers", answerTable)
  console.log(
    "wrote bench/results/answers.json, bench/results/answers.svg and the answers table in bench/README.md"
  )
}

// The two search paths side by side: the index must rank as the database does (within 0.5 points
// of recall@5), so every question where they differ is listed.
if (searchPaths.length > 1) {
  const perQuestion = (r: RankedQuestion) => {
    const evidence = new Set(r.evidence)
    return (100 * r.ranked.slice(0, 5).filter((id) => evidence.has(id)).length) / evidence.size
  }
  const comparisons = embedders.map((embedder) => {
    const of = (path: string) => measured.find((m) => m.embedder === embedder.id && m.search_path === path)!
    const index = of("index")
    const database = of("database")
    const differing = questions.flatMap((q, i) => {
      const a = perQuestion(index.ranked[i]!)
      const b = perQuestion(database.ranked[i]!)
      return a === b
        ? []
        : [
            {
              conv_id: q.conv_id,
              question: q.question,
              category: categoryNames[q.category],
              evidence: q.evidence,
              recall_at_5: { index: round1(a), database: round1(b) },
              top5: {
                index: index.ranked[i]!.ranked.slice(0, 5),
                database: database.ranked[i]!.ranked.slice(0, 5)
              }
            }
          ]
    })
    const sameTop5 = questions.filter(
      (_, i) => index.ranked[i]!.ranked.slice(0, 5).join() === database.ranked[i]!.ranked.slice(0, 5).join()
    ).length
    return {
      embedder: embedder.id,
      label: embedder.label,
      index: { retrieval: index.retrieval, latency_ms: index.latency_ms, served_by: index.served_by },
      database: {
        retrieval: database.retrieval,
        latency_ms: database.latency_ms,
        served_by: database.served_by
      },
      recall_at_5_difference: round1(index.retrieval.all.recall[5] - database.retrieval.all.recall[5]),
      questions: questions.length,
      same_top5: sameTop5,
      recall_at_5_differs: differing
    }
  })
  const pathsTable = [
    "| embedder | searches served by | R@1 | R@5 | R@10 | R@25 | MRR | query p50 / p95 ms |",
    "|---|---|---|---|---|---|---|---|",
    ...comparisons.flatMap((c) =>
      (["index", "database"] as const).map((path) => {
        const r = c[path]
        return `| ${c.label} | ${path === "index" ? "the in-process index" : "the database (`UMO_SEARCH_INDEX=false`)"} | ${ks.map((k) => r.retrieval.all.recall[k].toFixed(1)).join(" | ")} | ${r.retrieval.all.mrr.toFixed(3)} | ${r.latency_ms.p50} / ${r.latency_ms.p95} |`
      })
    ),
    "",
    ...comparisons.map(
      (c) =>
        `${c.label}: recall@5 index − database = ${c.recall_at_5_difference.toFixed(1)} points; the same top 5 for ${c.same_top5} of ${c.questions} questions, recall@5 different for ${c.recall_at_5_differs.length} (listed in [\`results/recall-paths.json\`](results/recall-paths.json)).`
    )
  ].join("\n")
  console.log(`\n${pathsTable}`)
  const out = join(root, "bench", "results")
  mkdirSync(out, { recursive: true })
  writeFileSync(
    join(out, "recall-paths.json"),
    `${JSON.stringify({ benchmark: "LoCoMo recall: the in-process index against the database path", date: results.date, machine: results.machine, data: results.data, comparisons }, null, 2)}\n`
  )
  const m = results.machine
  writeReadmeSection(
    root,
    "recall-paths",
    `Machine: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}; ${m.date}; one run of each path.\n\n${pathsTable}`
  )
  console.log("wrote bench/results/recall-paths.json and its table in bench/README.md")
}

if (!partial) {
  const out = join(root, "bench", "results")
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, "recall.json"), `${JSON.stringify(results, null, 2)}\n`)
  const chart = barChart({
    title: `LoCoMo recall@k, ${questions.length} questions, ${conversations.length} conversations`,
    yLabel: "recall@k (%)",
    categories: ks.map((k) => `recall@${k}`),
    series: [
      { name: "BM25 baseline", values: ks.map((k) => bm25.all.recall[k]) },
      ...runs.map((r) => ({ name: `UMO, ${r.label}`, values: ks.map((k) => r.retrieval.all.recall[k]) }))
    ],
    yMax: 100,
    reference: { value: 65, label: "target recall@5 = 65" }
  })
  writeFileSync(join(out, "recall.svg"), chart)
  writeReadmeSection(
    root,
    "recall",
    `${table}\n\nAnswer quality of \`POST /v1/ask\` per answer model (every local model with the default embedder; the default model with the others), categories 1–4:\n\n${answerTable}`
  )
  console.log("wrote bench/results/recall.json, bench/results/recall.svg and the table in bench/README.md")
}
