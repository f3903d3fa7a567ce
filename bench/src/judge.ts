/**
 * Whether a local language model could decide the updates the fact rules miss (issue 30's "a
 * language model may decide the hard cases"): each scenario memory is put to the model beside its
 * person's earlier memories that are still current (by the scenario's own labels, at most six, the
 * newest), and what the model says is out of date is compared with what the scenario says.
 * Two ways of asking:
 *
 * - `pairwise`: the model names the earlier notes the new one makes out of date;
 * - `facts`: the model lists each note's facts (who, an attribute of a fixed list, a value), and a
 *   new note supersedes an earlier one that gives a single-valued attribute of the writer another
 *   value (the rules' own way, with the model reading instead of the rules).
 *
 * Both are kind to the model: its candidates are only the person's own memories, chosen by the
 * labels rather than by a search, so the figures are a ceiling for what it would do at capture.
 * Nothing is stored; the output is printed, not committed (it is an experiment, not a result).
 *
 *   npm run fetch-models -- --llm=qwen2.5-coder-1.5b-instruct
 *   npm run bench:judge -- --model qwen2.5-coder-1.5b-instruct --method facts --sets blind3 [--people 12]
 */
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { DefaultAnswerModels, LocalLanguageModel } from "@umo/plugins/answer"
import { argument, modelsDir, root } from "./support/Cli.js"
import { loadScenarios, type Person } from "./updates/Scenarios.js"

const modelId = argument("model") ?? "qwen2.5-coder-1.5b-instruct"
const method = argument("method") ?? "facts"
const setNames = argument("sets")?.split(",")
const peopleEach = Number(argument("people") ?? Number.POSITIVE_INFINITY)
const candidatesKept = 6

const spec = DefaultAnswerModels.localLanguageModels.find((m) => m.id === modelId)
if (spec === undefined) throw new Error(`unknown model ${modelId}`)
if (method !== "pairwise" && method !== "facts") throw new Error("--method is pairwise or facts")
const runtimeDir = LocalLanguageModel.runtimeDir()
const entry = LocalLanguageModel.runtimeEntry(runtimeDir)
if (entry === undefined)
  throw new Error(`node-llama-cpp is not in ${runtimeDir}: ${LocalLanguageModel.fetchCommand}`)

// node-llama-cpp is installed apart (see LocalLanguageModel.runtimeDir) and untyped here.
// biome-ignore lint/suspicious/noExplicitAny: the runtime's module, loaded by path
const llamaCpp: any = await import(pathToFileURL(entry).href)
const llama = await llamaCpp.getLlama({ gpu: false, build: "never", logLevel: llamaCpp.LlamaLogLevel.error })
const model = await llama.loadModel({
  modelPath: join(modelsDir, spec.file)
})
const context = await model.createContext({
  contextSize: 4096,
  batchSize: 512,
  sequences: 1,
  threads: LocalLanguageModel.defaultLimits.threads
})
const sequence = context.getSequence()

/** One chat turn under `system`, held to `grammar` (a JSON schema), parsed; undefined if unparsable. */
const ask = async (
  system: string,
  text: string,
  grammar: { parse: (s: string) => unknown },
  maxTokens: number
) => {
  const session = new llamaCpp.LlamaChatSession({
    contextSequence: sequence,
    systemPrompt: system,
    autoDisposeSequence: false
  })
  try {
    const reply: string = await session.prompt(text, { grammar, maxTokens, temperature: 0 })
    return grammar.parse(reply)
  } catch {
    return undefined
  } finally {
    session.dispose({ disposeSequence: false })
  }
}

const pairwiseSystem = `You keep one person's notes up to date. The person wrote every note ("I", "my", "we" is them).
A NEW note makes an EARLIER note out of date when it gives a different value for the same fact about the person: where they live, where they work, their job title, their partner, a pet, a favourite thing, their phone or email, how many of something they have, or the date or place of a plan.
A new note does NOT make an earlier one out of date when it adds something (a second pet, another hobby), when it is about someone else (a sister, a friend), when it is a trip or a visit, or when the facts are different ones.
Reply with JSON: {"outdated": [the numbers of the earlier notes the new note makes out of date]}, or {"outdated": []}.

Example:
Earlier notes:
[1] I've lived in Madrid for six years.
[2] My sister got a golden retriever.
New note: Just signed the lease on our place in Lisbon!
Reply: {"outdated": [1]}

Example:
Earlier notes:
[1] We adopted a cat called Miso.
[2] Work at Deloitte is intense this month.
New note: Adopted a second cat, Tofu!
Reply: {"outdated": []}`

const attributes = [
  "home city",
  "employer",
  "job title",
  "partner",
  "pet",
  "favourite food",
  "favourite film",
  "favourite music",
  "favourite book",
  "favourite sport",
  "phone number",
  "email",
  "diet",
  "car",
  "school",
  "planned trip",
  "planned event date",
  "count",
  "none"
]
/** Attributes one value at a time: a new value replaces the old (a pet, a trip, a count may be several). */
const singleValued = new Set(attributes.filter((a) => !["pet", "planned trip", "count", "none"].includes(a)))

const factsSystem = `You read one short note a person wrote about their life ("I", "my", "we" is the writer) and list the facts it states as they stand now.
Each fact: who it is about ("writer" or "someone else"), its attribute (one of: ${attributes.join(", ")}), and its value in a few words.
List only facts the note states. A trip or visit is not a home city. Reply with JSON.

Example note: Just signed the lease on our place in Lisbon! My sister is still in Porto.
Reply: {"facts": [{"about": "writer", "attribute": "home city", "value": "Lisbon"}, {"about": "someone else", "attribute": "home city", "value": "Porto"}]}

Example note: First week as head barista at Kaffa done, feet hurt.
Reply: {"facts": [{"about": "writer", "attribute": "job title", "value": "head barista"}, {"about": "writer", "attribute": "employer", "value": "Kaffa"}]}`

const pairwiseGrammar = await llama.createGrammarForJsonSchema({
  type: "object",
  properties: { outdated: { type: "array", items: { type: "integer" } } }
})
const factsGrammar = await llama.createGrammarForJsonSchema({
  type: "object",
  properties: {
    facts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          about: { enum: ["writer", "someone else"] },
          attribute: { enum: attributes },
          value: { type: "string" }
        }
      }
    }
  }
})

interface Fact {
  readonly about: string
  readonly attribute: string
  readonly value: string
}
const plain = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^\p{L}\p{N}@.]+/gu, " ")
    .trim()

let calls = 0
let modelMs = 0
const timedAsk = async (...args: Parameters<typeof ask>) => {
  const started = performance.now()
  const result = await ask(...args)
  modelMs += performance.now() - started
  calls++
  return result
}

/** For each memory of a person, the ids of the earlier ones the model says it makes out of date. */
const judged = async (person: Person): Promise<ReadonlyArray<ReadonlySet<string>>> => {
  const memories = person.memories
  const current = (i: number) => {
    const gone = new Set(memories.slice(0, i).flatMap((m) => m.supersedes))
    return memories
      .slice(0, i)
      .filter((m) => !gone.has(m.id))
      .slice(-candidatesKept)
  }
  if (method === "pairwise") {
    const said: Array<ReadonlySet<string>> = []
    for (const [i, memory] of memories.entries()) {
      const earlier = current(i)
      if (earlier.length === 0) {
        said.push(new Set())
        continue
      }
      const text = `Earlier notes:\n${earlier.map((m, k) => `[${k + 1}] ${m.text}`).join("\n")}\nNew note: ${memory.text}`
      const reply = (await timedAsk(pairwiseSystem, text, pairwiseGrammar, 40)) as
        | { readonly outdated?: ReadonlyArray<number> }
        | undefined
      said.push(new Set((reply?.outdated ?? []).flatMap((n) => earlier[n - 1]?.id ?? [])))
    }
    return said
  }
  const facts: Array<ReadonlyArray<Fact>> = []
  for (const memory of memories) {
    const reply = (await timedAsk(factsSystem, `Note: ${memory.text}`, factsGrammar, 120)) as
      | { readonly facts?: ReadonlyArray<Fact> }
      | undefined
    facts.push((reply?.facts ?? []).filter((f) => f.about === "writer" && singleValued.has(f.attribute)))
  }
  return memories.map((_, i) => {
    const earlierFacts = new Map(memories.slice(0, i).map((m, j) => [m.id, facts[j]!]))
    return new Set(
      current(i)
        .filter((m) =>
          facts[i]!.some((f) =>
            earlierFacts
              .get(m.id)!
              .some((o) => o.attribute === f.attribute && plain(o.value) !== plain(f.value))
          )
        )
        .map((m) => m.id)
    )
  })
}

const sets = loadScenarios(join(root, "bench", "updates")).filter(
  (s) => setNames === undefined || setNames.includes(s.name)
)
console.log(`${modelId}, ${method}; candidates: the person's current earlier memories (≤ ${candidatesKept})`)
console.log("| set | people | expected found | claims right / wrong | precision | recall |")
console.log("|---|---|---|---|---|---|")
for (const set of sets) {
  let right = 0
  let wrong = 0
  let expected = 0
  const people = set.people.slice(0, peopleEach)
  for (const person of people) {
    const said = await judged(person)
    person.memories.forEach((memory, i) => {
      const truth = new Set(memory.supersedes)
      expected += truth.size
      for (const id of said[i]!) truth.has(id) ? right++ : wrong++
    })
  }
  const precision = right / Math.max(1, right + wrong)
  const recall = right / Math.max(1, expected)
  console.log(
    `| ${set.name} | ${people.length} | ${right}/${expected} | ${right} / ${wrong} | ${precision.toFixed(2)} | ${recall.toFixed(2)} |`
  )
}
console.log(`${calls} model calls, ${(modelMs / Math.max(1, calls)).toFixed(0)} ms each`)
process.exit(0)
