/**
 * Memories that change and belong to someone: the update scenarios (`bench/updates/`) in one
 * account beside many other users' memories, through the memory service in this process.
 *
 *   npm run bench:updates              # the scenarios among 10,000 memories of 1,000 other users
 *   npm run bench:updates -- --quick   # among 1,000 memories of 100 users
 *   npm run bench:updates -- --memories 100000 --users 10000   # a larger account
 *   npm run bench:updates -- --quick --sets dev,test   # some sets only (never written as the results)
 *   npm run bench:updates -- --quick --passes learned  # the learned judge's pass only (a new judge
 *                                                       # against the rules' figures of an earlier run)
 *
 * Reports: the current fact ranked first by search, ask answering the current value (and the
 * earlier one, for questions about the past, and every value, for additive facts), supersessions
 * inferred against those the scenarios expect (false ones over the memories that should stay
 * current), results or citations of another user in filtered search and ask (leaks), and search
 * p50/p95 filtered by one user against unfiltered, on queries never asked twice, and the time to
 * erase every other user's memory in one call (they share an agent), its receipt verified. The same
 * scenarios with update inference off are the baseline. The other users' memories are loaded
 * straight through the store with precomputed embeddings (`support/ScaleCorpus`); the scenarios'
 * memories and every query go through the real model.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { verifyReceipt } from "@umo/client"
import type { UpdateJudgeShape } from "@umo/core"
import { openMemory } from "@umo/memory"
import { Database, LearnedJudge } from "@umo/plugins"
import { Effect, Exit, Scope } from "effect"
import { barChart } from "./support/Chart.js"
import { argument, benchSigningKey, progress, quick, root } from "./support/Cli.js"
import { seeded } from "./support/Corpus.js"
import { machine } from "./support/Machine.js"
import { publishResults } from "./support/Results.js"
import * as ScaleCorpus from "./support/ScaleCorpus.js"
import { p50p95 } from "./support/Stats.js"
import { combined, type PassResult, runScenarios } from "./updates/Run.js"
import { loadScenarios, readSets } from "./updates/Scenarios.js"

const others = {
  memories: Number(argument("memories") ?? (quick ? 1_000 : 10_000)),
  users: Number(argument("users") ?? (quick ? 100 : 1_000))
}
/** Every other user's memory was written by one agent: erasing it erases them all in one call. */
const importer = "bulk-import"
const latencyQueries = quick ? 40 : 200
/** `--sets a,b`: those sets only, to read their misses without printing a blind set's. */
const only = argument("sets")?.split(",")
const allSets = loadScenarios(join(root, "bench", "updates"))
const sets = allSets.filter((s) => only?.includes(s.name) ?? true)
if (only !== undefined && sets.length !== only.length)
  throw new Error(`--sets ${only.join(",")}: the sets are ${allSets.map((s) => s.name).join(", ")}`)
const dir = mkdtempSync(join(tmpdir(), "umo-bench-updates-"))
const account = "updates-bench"
/**
 * The passes: the learned update judge (`UMO_UPDATE_JUDGE=learned`), the fact rules alone (the default),
 * and no inference (`infer_updates: false`, without the other users' memories), the baseline.
 */
const passKinds = [
  { name: "learned", judge: "learned", infer: true },
  { name: "rules", judge: "rules", infer: true },
  { name: "off", judge: "learned", infer: false }
].filter((p) => argument("passes")?.split(",").includes(p.name) ?? true)
if (!passKinds.some((p) => p.name === "learned"))
  throw new Error("--passes: the learned pass is the one the table is made of")
/** The learned judge, made once for the passes that use it; its thread closes with `judgeScope`. */
const judgeScope = await Effect.runPromise(Scope.make())
const learnedJudge = await Effect.runPromise(LearnedJudge.make().pipe(Scope.provide(judgeScope)))
/** The fact rules alone: they decide in the store; a judge that never says yes adds nothing. */
const saysNothing: UpdateJudgeShape = {
  name: "rules",
  threshold: 1,
  score: (pairs) => Effect.succeed(pairs.map(() => 0))
}

try {
  const corpus = await ScaleCorpus.make({ root, quick })
  const started = performance.now()
  // The passes that infer updates each run in an account holding the other users' memories.
  for (const pass of passKinds.filter((p) => p.infer))
    await Effect.runPromise(
      corpus
        .load(`${account}-${pass.name}`, others.memories, (i) => ({
          scope: { user_id: `other-${i % others.users}`, agent_id: importer, session_id: null }
        }))
        .pipe(Effect.provide(corpus.storage(Database.pglite({ dataDir: join(dir, "pglite") }))))
    )
  const loadSeconds = Math.round((performance.now() - started) / 1000)

  const passes: Record<string, PassResult> = {}
  const bySet: Record<string, Record<string, PassResult>> = {}
  let latency: Record<string, { p50: number; p95: number }> = {}
  let erasure: { memories: number; seconds: number; receipt_verified: boolean } | undefined
  for (const pass of passKinds) {
    // Given to the service, not through UMO_UPDATE_JUDGE: the environment is read once per process.
    const memory = await openMemory({
      dataDir: dir,
      account: `${account}-${pass.name}`,
      signingKey: benchSigningKey(),
      updateJudge: pass.judge === "learned" ? learnedJudge : saysNothing
    })
    try {
      const results: Array<PassResult> = []
      for (const set of sets) {
        const result = await runScenarios(memory, set, pass.infer, progress)
        bySet[pass.name] ??= {}
        bySet[pass.name]![set.name] = result
        results.push(result)
      }
      passes[pass.name] = combined(results)
      if (pass.name === "learned") {
        // Filtered by one of the other users against unfiltered, alternating; no query twice (the
        // service keeps the vectors of queries it has seen).
        const random = seeded(23)
        const pool = [...corpus.questions].sort(() => random() - 0.5).slice(0, 2 * latencyQueries)
        const times: Record<string, Array<number>> = { filtered: [], unfiltered: [] }
        for (const [i, q] of pool.entries()) {
          const filtered = i % 2 === 0
          const t = performance.now()
          await memory.ask(q.question, {
            limit: 10,
            ...(filtered ? { userId: `other-${Math.floor(random() * others.users)}` } : {})
          })
          times[filtered ? "filtered" : "unfiltered"]!.push(performance.now() - t)
        }
        latency = { filtered: p50p95(times.filtered!), unfiltered: p50p95(times.unfiltered!) }
        // Every other user's memory in one call, with one signed receipt naming them.
        const erased = performance.now()
        const receipt = await memory.forgetAll({ agentId: importer })
        const seconds = Math.round((performance.now() - erased) / 100) / 10
        const claims = await verifyReceipt(receipt.receipt, await memory.signingKeys())
        erasure = {
          memories: receipt.forgotten,
          seconds,
          receipt_verified: claims.count === others.memories && receipt.forgotten === others.memories
        }
      }
    } finally {
      await memory.close()
    }
  }
  process.stderr.write("\n")

  const percent = (x: number, of: number) => (of === 0 ? 0 : Math.round((1000 * x) / of) / 10)
  const row = (name: string, pass: PassResult) => {
    const q = pass.questions
    const rate = (kind: string, key: "search_first" | "ask_right") =>
      q[kind] ? `${percent(q[kind][key], q[kind].count)} (${q[kind][key]}/${q[kind].count})` : "–"
    return `| ${name} | ${rate("current", "search_first")} | ${rate("current", "ask_right")} | ${rate("history", "ask_right")} | ${rate("additive", "ask_right")} | ${pass.correct_supersessions}/${pass.expected_supersessions} | ${percent(pass.false_supersessions, pass.should_stay_current)} (${pass.false_supersessions}/${pass.should_stay_current}) | ${pass.leaks} |`
  }
  const learned = passes.learned!
  const neverRead = sets.filter((set) => !readSets.has(set.name))
  const capture = (pass: PassResult) => {
    const { p50, p95 } = p50p95([...pass.capture_ms])
    return `${p50} / ${p95}`
  }
  const table = [
    `${learned.people} people, ${learned.memories} memories, in one account with ${others.memories.toLocaleString("en")} memories of ${others.users.toLocaleString("en")} other users; every query filtered by the person's \`user_id\`. Sets: ${sets.map((s) => `\`${s.name}\` (${s.people.length} people${readSets.has(s.name) ? ", read" : ", never read"})`).join(", ")} — \`dev\` is the one the fact rules were tuned on; the never-read sets' misses are never printed.`,
    "",
    "| updates | current fact first in search, % | ask answers the current value, % | ask answers the earlier value (history), % | ask names every value (additive), % | supersessions found | false supersessions, % | leaks |",
    "|---|---|---|---|---|---|---|---|",
    ...sets.map((set) => row(`learned judge, \`${set.name}\` set`, bySet["learned"]![set.name]!)),
    ...(neverRead.length > 0
      ? [
          row(
            `learned judge (\`UMO_UPDATE_JUDGE=learned\`), never-read sets (${neverRead.map((s) => s.name).join(", ")})`,
            combined(neverRead.map((set) => bySet["learned"]![set.name]!))
          ),
          ...(bySet["rules"] === undefined
            ? []
            : [
                row(
                  `**fact rules (default), never-read sets**`,
                  combined(neverRead.map((set) => bySet["rules"]![set.name]!))
                )
              ])
        ]
      : []),
    row("learned judge (`UMO_UPDATE_JUDGE=learned`), all sets", learned),
    ...(passes.rules === undefined ? [] : [row("**fact rules (default), all sets**", passes.rules)]),
    ...(passes.off === undefined ? [] : [row("off (`infer_updates: false`), all sets", passes.off)]),
    "",
    `Capture p50 / p95 ms in the account of ${others.memories.toLocaleString("en")} memories over ${others.users.toLocaleString("en")} users: learned judge ${capture(learned)}${passes.rules === undefined ? "" : `, fact rules ${capture(passes.rules)}`}${passes.off === undefined ? "" : `, no inference ${capture(passes.off)}`} (same run).`,
    `Search p50 / p95 ms among ${others.memories.toLocaleString("en")} memories, ${latencyQueries} queries each: filtered by one user ${latency.filtered?.p50} / ${latency.filtered?.p95}, unfiltered ${latency.unfiltered?.p50} / ${latency.unfiltered?.p95}.`,
    erasure === undefined
      ? ""
      : `Erasure of the other users' ${erasure.memories.toLocaleString("en")} memories in one call (\`forgetAll({ agentId })\`): ${erasure.seconds} s, one receipt, ${erasure.receipt_verified ? "verified offline and naming every one" : "NOT verified"}.`
  ].join("\n")
  console.log(table)
  for (const miss of learned.misses) console.log(`  ${miss}`)
  const results = {
    benchmark: "scopes and updates",
    machine: machine(),
    // Some sets only is not the benchmark: written where a quick run's results go.
    quick: quick || only !== undefined || passKinds.length < 3,
    scenario_sets: sets.map((s) => ({ name: s.name, people: s.people.length })),
    other_users: others,
    load_seconds: loadSeconds,
    passes,
    by_set: bySet,
    erasure,
    search_ms: latency
  }
  publishResults(
    root,
    // A larger account than the default is a results file (and README block) of its own.
    argument("memories") === undefined ? "updates" : `updates-${others.memories}`,
    results,
    barChart({
      title: "Knowledge updates: current value first / answered (%)",
      yLabel: "%",
      yMax: 100,
      categories: ["search first", "ask current", "ask history", "ask additive"],
      series: Object.entries(passes).map(([name, pass]) => ({
        name: { learned: "learned judge", rules: "fact rules", off: "inference off" }[name] ?? name,
        values: (
          [
            ["current", "search_first"],
            ["current", "ask_right"],
            ["history", "ask_right"],
            ["additive", "ask_right"]
          ] as const
        ).map(([kind, key]) => percent(pass.questions[kind]?.[key] ?? 0, pass.questions[kind]?.count ?? 0))
      }))
    }),
    table
  )
} finally {
  await Effect.runPromise(Scope.close(judgeScope, Exit.void))
  rmSync(dir, { recursive: true, force: true })
}
