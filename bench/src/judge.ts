/**
 * The update judges on the update scenarios, pair by pair: for each person, every earlier memory
 * still current (by the scenario's own labels) is paired with each later memory, and a judge's
 * probability that the later makes the earlier out of date is compared with the scenario's label.
 * Reports, per set and judge, precision and recall over the threshold (the curve), and both at the
 * judge's own threshold, with the false-positive rate over the pairs that are no update. Only
 * totals are printed: the pairs a judge gets wrong on a never-read set are never shown.
 *
 *   npm run bench:judge                                  # rules and the learned judge
 *   npm run bench:judge -- --endpoint http://127.0.0.1:8080 --model qwen2.5-1.5b   # and a language
 *                                                        # model behind an OpenAI-compatible server
 *   npm run bench:judge -- --local qwen2.5-coder-0.5b-instruct   # and a local GGUF model (fetch-models --llm)
 *   npm run bench:judge -- --sets dev,test               # some sets only (a quick run's results)
 *   … --no-alone    # a language model only where the learned judge is unsure (not alone on every pair:
 *                   # on two cores a 1.5B model takes about a second a pair)
 */
import { join } from "node:path"
import type { UpdateJudgeShape } from "@umo/core"
import { LanguageModelJudge, LearnedJudge, LocalModelJudge, RulesJudge } from "@umo/plugins"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { argument, modelsDir, root } from "./support/Cli.js"
import { lineChart } from "./support/LineChart.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"
import { rocAuc } from "./support/Stats.js"
import { loadScenarios, type Person, readSets } from "./updates/Scenarios.js"

const only = argument("sets")?.split(",")
const sets = loadScenarios(join(root, "bench", "updates")).filter((s) => only?.includes(s.name) ?? true)
const endpoint = argument("endpoint")
const modelName = argument("model")
/** `--local ID[,ID…]`: local GGUF models (fetch-models `--llm=ID`), each alone and deciding the unsure pairs. */
const localIds = argument("local")?.split(",") ?? []
/** Whether a language model is also measured alone, on every pair. */
const alone = !process.argv.includes("--no-alone")

interface Pair {
  readonly earlier: string
  readonly newer: string
  readonly label: boolean
}

/** A person's pairs: each later memory with every earlier one still current then, by the labels. */
const pairsOf = (person: Person): ReadonlyArray<Pair> =>
  person.memories.flatMap((newer, j) => {
    const gone = new Set(person.memories.slice(0, j).flatMap((m) => m.supersedes))
    return person.memories
      .slice(0, j)
      .filter((m) => !gone.has(m.id))
      .map((earlier) => ({
        earlier: earlier.text,
        newer: newer.text,
        label: newer.supersedes.includes(earlier.id)
      }))
  })

const thresholds = Array.from({ length: 19 }, (_, i) => (i + 1) / 20)

const at = (scores: ReadonlyArray<number>, pairs: ReadonlyArray<Pair>, threshold: number) => {
  let tp = 0
  let fp = 0
  for (const [i, s] of scores.entries()) if (s >= threshold) pairs[i]!.label ? tp++ : fp++
  const positives = pairs.filter((p) => p.label).length
  const negatives = pairs.length - positives
  return {
    threshold,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: positives === 0 ? 0 : tp / positives,
    false_positive_rate: negatives === 0 ? 0 : fp / negatives,
    found: tp,
    false: fp
  }
}

const program = Effect.gen(function* () {
  const judges: Array<UpdateJudgeShape> = [RulesJudge.judge, yield* LearnedJudge.make()]
  if (endpoint !== undefined && modelName !== undefined) {
    const learned = judges[1]!
    const model = yield* LanguageModelJudge.make({
      baseUrl: endpoint,
      model: modelName,
      apiKey: process.env["UMO_UPDATE_MODEL_KEY"]
    })
    judges.push(...(alone ? [model] : []), LanguageModelJudge.decidingUnsure(learned, model))
  }
  for (const id of localIds) {
    const model = yield* LocalModelJudge.make(id, modelsDir)
    judges.push(...(alone ? [model] : []), LanguageModelJudge.decidingUnsure(judges[1]!, model))
  }
  const rows: Array<Record<string, unknown>> = []
  const row = (
    set: string,
    judge: UpdateJudgeShape,
    pairs: ReadonlyArray<Pair>,
    scores: ReadonlyArray<number>,
    ms: number
  ) => ({
    set,
    judge: judge.name,
    pairs: pairs.length,
    updates: pairs.filter((p) => p.label).length,
    auc:
      Math.round(
        rocAuc(
          scores,
          pairs.map((p) => p.label)
        ) * 1e4
      ) / 1e4,
    ms_per_pair: Math.round(ms * 100) / 100,
    at_threshold: at(scores, pairs, judge.threshold),
    curve: thresholds.map((t) => at(scores, pairs, t))
  })
  // The never-read sets pooled, per judge: the figure the targets are set on.
  const pooled = new Map<string, { pairs: Array<Pair>; scores: Array<number>; ms: number }>()
  for (const set of sets) {
    const pairs = set.people.flatMap(pairsOf)
    for (const judge of judges) {
      const started = performance.now()
      const scores = yield* judge.score(pairs.map(({ earlier, newer }) => ({ earlier, newer })))
      const ms = (performance.now() - started) / Math.max(1, pairs.length)
      rows.push(row(set.name, judge, pairs, scores, ms))
      if (!readSets.has(set.name)) {
        const all = pooled.get(judge.name) ?? { pairs: [], scores: [], ms: 0 }
        all.pairs.push(...pairs)
        all.scores.push(...scores)
        all.ms += ms * pairs.length
        pooled.set(judge.name, all)
      }
      process.stderr.write(`judge: ${set.name} ${judge.name} done\n`)
    }
  }
  for (const judge of judges) {
    const all = pooled.get(judge.name)
    if (all !== undefined)
      rows.push(row("never read, pooled", judge, all.pairs, all.scores, all.ms / all.pairs.length))
  }
  return { judges: judges.map((j) => ({ name: j.name, threshold: j.threshold })), rows }
})

const { judges, rows } = await Effect.runPromise(
  Effect.scoped(program).pipe(Effect.provide(FetchHttpClient.layer))
)
const pct = (x: number) => (100 * x).toFixed(1)
const table = [
  `Every later memory of a person paired with each earlier one still current (by the scenarios' labels); an update when the scenario says the later supersedes the earlier. At each judge's own threshold (${judges.map((j) => `${j.name}: ${j.threshold}`).join("; ")}).`,
  "",
  "| set | judge | pairs (updates) | ROC AUC | precision, % | recall, % | false positives, % of non-updates | ms / pair |",
  "|---|---|---|---|---|---|---|---|",
  ...rows.map((r) => {
    const a = r["at_threshold"] as ReturnType<typeof at>
    return `| ${r["set"]} | ${r["judge"]} | ${r["pairs"]} (${r["updates"]}) | ${r["auc"]} | ${pct(a.precision)} (${a.found}/${a.found + a.false}) | ${pct(a.recall)} | ${pct(a.false_positive_rate)} (${a.false}) | ${r["ms_per_pair"]} |`
  })
].join("\n")
console.log(table)
publishResults(
  root,
  "judge",
  { quick: only !== undefined, machine: machine(), judges, rows } as never,
  lineChart({
    title: "Update judges: precision (y) against recall (x) over the threshold, per set",
    xLabel: "recall",
    yLabel: "precision",
    max: 1,
    series: rows
      .filter((r) => r["judge"] !== "rules")
      .map((r) => ({
        name:
          `${r["judge"]}`.split("@")[0]!.replace("learned:umo-update-judge", "learned") + ` · ${r["set"]}`,
        points: (r["curve"] as Array<ReturnType<typeof at>>).map((p) => [p.recall, p.precision] as const)
      }))
  }),
  table
)
