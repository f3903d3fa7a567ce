import { existsSync } from "node:fs"
import { join } from "node:path"
import { type JudgedPair, UpdateJudgeError, type UpdateJudgeShape } from "@umo/core"
import { Effect } from "effect"
import { localLanguageModels } from "../answer/DefaultAnswerModels.js"
import { fetchCommand, importRuntime, runtimeDir, runtimeEntry } from "../answer/LocalLanguageModel.js"
import { system } from "./LanguageModelJudge.js"

// The parts of node-llama-cpp used here (installed apart: see LocalLanguageModel.runtimeDir).
interface Sequence {
  readonly clearHistory: () => Promise<void>
  readonly evaluateWithMetadata: (
    tokens: ReadonlyArray<number>,
    metadata: { readonly probabilities: true },
    options: { readonly temperature: number }
  ) => AsyncGenerator<{ readonly probabilities: ReadonlyMap<number, number> }>
}
interface Model {
  readonly tokenize: (text: string, special?: boolean) => ReadonlyArray<number>
  readonly tokenizer: unknown
  readonly createContext: (
    options: Record<string, number>
  ) => Promise<{ readonly getSequence: () => Sequence }>
}
interface Runtime {
  readonly getLlama: (
    options: Record<string, unknown>
  ) => Promise<{ readonly loadModel: (o: { modelPath: string }) => Promise<Model> }>
  readonly LlamaLogLevel: { readonly error: unknown }
  readonly resolveChatWrapper: (model: Model) => {
    readonly generateContextState: (o: { chatHistory: ReadonlyArray<unknown> }) => {
      readonly contextText: { readonly tokenize: (tokenizer: unknown) => ReadonlyArray<number> }
    }
  }
}

/**
 * A local GGUF language model as a judge (`UMO_UPDATE_MODEL=qwen2.5-coder-1.5b-instruct`, say):
 * the pair put to it in its own chat template, and the probability it gives "yes" against "no" as
 * its first word read from the model's own token probabilities, one pair at a time. Loaded on
 * the first call. Never required: it only decides what the learned judge is unsure of.
 */
export const make = (id: string, modelsDir: string, threads = 2) =>
  Effect.gen(function* () {
    const name = `local-model:${id}`
    const fail = (detail: string, cause?: unknown) => new UpdateJudgeError({ judge: name, detail, cause })
    const spec = localLanguageModels.find((m) => m.id === id)
    if (spec === undefined)
      return yield* fail(`no local model ${id} (known: ${localLanguageModels.map((m) => m.id).join(", ")})`)
    const path = join(modelsDir, spec.file)
    if (runtimeEntry(runtimeDir()) === undefined || !existsSync(path))
      return yield* fail(`${path} or its runtime is not installed; run \`${spec.fetch ?? fetchCommand}\``)
    let loading: Promise<{ model: Model; sequence: Sequence; runtime: Runtime }> | undefined
    const load = () =>
      (loading ??= (async () => {
        // The answerer's import of the runtime, shared; typed here for the calls a judge makes.
        const runtime = (await importRuntime(runtimeDir())) as unknown as Runtime
        const llama = await runtime.getLlama({
          gpu: false,
          build: "never",
          logLevel: runtime.LlamaLogLevel.error
        })
        const model = await llama.loadModel({ modelPath: path })
        const context = await model.createContext({
          contextSize: 1024,
          batchSize: 512,
          sequences: 1,
          threads
        })
        return { model, sequence: context.getSequence(), runtime }
      })())
    const one = async (pair: JudgedPair) => {
      const { model, sequence, runtime } = await load()
      const tokens = runtime
        .resolveChatWrapper(model)
        .generateContextState({
          chatHistory: [
            { type: "system", text: system },
            { type: "user", text: `EARLIER: ${pair.earlier}\nNEWER: ${pair.newer}\nOut of date?` },
            { type: "model", response: [] }
          ]
        })
        .contextText.tokenize(model.tokenizer)
      await sequence.clearHistory()
      const steps = sequence.evaluateWithMetadata(tokens, { probabilities: true }, { temperature: 1 })
      const first = await steps.next()
      await steps.return(undefined)
      const probabilities = first.done ? new Map<number, number>() : first.value.probabilities
      const mass = (words: ReadonlyArray<string>) =>
        words.reduce((sum, w) => {
          const t = model.tokenize(w, false)
          return sum + (t.length === 1 ? (probabilities.get(t[0]!) ?? 0) : 0)
        }, 0)
      const yes = mass(["yes", "Yes", " yes", " Yes"])
      const no = mass(["no", "No", " no", " No"])
      if (yes + no === 0) throw new Error("the model gave neither yes nor no any probability")
      return yes / (yes + no)
    }
    // One pair at a time: the model has one sequence.
    const score: UpdateJudgeShape["score"] = (pairs) =>
      Effect.tryPromise({
        try: async () => {
          const scores: Array<number> = []
          for (const pair of pairs) scores.push(await one(pair))
          return scores
        },
        catch: (cause) => fail(`judging failed: ${String(cause)}`, cause)
      }).pipe(Effect.withSpan("UpdateJudge.localModel", { attributes: { pairs: pairs.length } }))
    return { name, threshold: 0.5, score } satisfies UpdateJudgeShape
  })
