import { it } from "@effect/vitest"
import type { AnswerModelError, AnswerModelShape } from "@umo/core"
import { DefaultAnswerModels, LocalLanguageModel } from "@umo/plugins"
import { Effect } from "effect"
import { describe, expect, it as test } from "vitest"
import { makeTaskQueue } from "../../src/support/TaskQueue.js"

const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"
// The smallest real model fetch-models installs (SmolLM2-135M-Instruct, 98 MB): what it says is
// not checked for truth here, only what the service does with it.
const smallest = DefaultAnswerModels.localLanguageModels.find((m) => m.id === "smollm2-135m-instruct")!
// The tests with the real model run when `npm run fetch-models -- --llm` has installed llama.cpp's
// runtime and the model (CI does); otherwise they are skipped, and say so.
const runtime = LocalLanguageModel.runtimeDir()
const skipped = LocalLanguageModel.make(smallest, modelsDir, makeTaskQueue(1)).unavailable
if (skipped !== undefined)
  console.warn(`LocalLanguageModel: the tests with a real GGUF model are SKIPPED: ${skipped}`)
const withModel = it.live.skipIf(skipped !== undefined)

const context = (index: number, content: string) => ({
  index,
  umo_id: `0000000${index}-0000-7000-8000-000000000000`,
  content,
  summary: content,
  timestamp: "2026-01-10T09:00:00.000Z",
  similarity: 0.7
})
const request = {
  question: "Where does Marie work?",
  contexts: [
    context(1, "Marie works at the Radium Institute in Paris as a physicist."),
    context(2, "Tom's daughter Lily starts kindergarten next September in Oakland.")
  ]
}
const limits = { ...LocalLanguageModel.defaultLimits, maxTokens: 24 }
const failureOf = (model: AnswerModelShape) =>
  Effect.flip(model.answer(request)).pipe(Effect.map((e: AnswerModelError) => e.reason))

describe("LocalLanguageModel", () => {
  it.effect("a model whose file is not installed is offered as unavailable and refuses to answer", () =>
    Effect.gen(function* () {
      const model = LocalLanguageModel.make(
        { id: "absent", file: "gguf/absent.gguf" },
        modelsDir,
        makeTaskQueue(1)
      )
      expect(model.unavailable).toContain("gguf/absent.gguf is not in")
      expect(model.unavailable).toContain("run `npm run fetch-models -- --llm`")
      expect(yield* failureOf(model)).toBe("NotInstalled")
    })
  )

  it.effect("without llama.cpp's runtime, every local model is unavailable and says how to install it", () =>
    Effect.gen(function* () {
      const nowhere = "/nonexistent/umo-llm-runtime"
      expect(LocalLanguageModel.runtimeEntry(nowhere)).toBeUndefined()
      const model = LocalLanguageModel.make(smallest, modelsDir, makeTaskQueue(1), limits, nowhere)
      expect(model.unavailable).toContain(`node-llama-cpp is not installed in ${nowhere}`)
      expect(model.unavailable).toContain("run `npm run fetch-models -- --llm`")
      expect(yield* failureOf(model)).toBe("NotInstalled")
      // A model fetch-models leaves out unless named says how to name it.
      const larger = DefaultAnswerModels.localLanguageModels.find(
        (m) => m.id === "qwen2.5-coder-1.5b-instruct"
      )!
      expect(
        LocalLanguageModel.make(larger, "/nonexistent", makeTaskQueue(1), limits, nowhere).unavailable
      ).toContain("run `npm run fetch-models -- --llm=qwen2.5-coder-1.5b-instruct`")
    })
  )

  test("finds the runtime where `npm run fetch-models -- --llm` installs it, when it is there", () => {
    const entry = LocalLanguageModel.runtimeEntry(runtime)
    if (skipped === undefined) expect(entry).toMatch(/node-llama-cpp[\\/]dist[\\/]index\.js$/)
  })

  test("gives each memory its share of the prompt, shrunk until the whole fits its token budget", () => {
    const limits = LocalLanguageModel.defaultLimits
    // One token per character: what text of rare characters costs.
    const contexts = Array.from({ length: 20 }, (_, i) => context(i + 1, "ж".repeat(5_000)))
    const text = LocalLanguageModel.fittedPrompt({ question: "What?", contexts }, limits, (t) => t.length)
    expect(text.length).toBeLessThanOrEqual(limits.promptTokens)
    expect(text).toContain("[20] (written 10 January 2026)")
    // A relative time is worked out for the model against the day the memory was written.
    const dated = LocalLanguageModel.prompt(
      { question: "When?", contexts: [context(1, "We adopted a puppy last week.")] },
      200
    )
    expect(dated).toContain(
      "[1] (written 10 January 2026; the time it mentions: The week before 10 January 2026)"
    )
  })

  withModel("answers with a real GGUF model, and every [n] it keeps names a memory it was given", () =>
    Effect.gen(function* () {
      const model = LocalLanguageModel.make(smallest, modelsDir, makeTaskQueue(4), limits)
      expect(model.unavailable).toBeUndefined()
      const answer = yield* model.answer(request)
      expect(answer.method).toBe("generative")
      expect(answer.answer.length).toBeGreaterThan(0)
      const cited = new Set(answer.citations.map((c) => c.index))
      for (const m of answer.answer.matchAll(/\[(\d+)\]/g)) expect(cited.has(Number(m[1]))).toBe(true)
      for (const c of answer.citations) expect([1, 2]).toContain(c.index)
      // With nothing retrieved, the model is not asked to make something up.
      expect((yield* model.answer({ ...request, contexts: [] })).method).toBe("no_context")
    })
  )

  withModel("holds an answer to its token budget", () =>
    Effect.gen(function* () {
      const model = LocalLanguageModel.make(smallest, modelsDir, makeTaskQueue(4), {
        ...limits,
        maxTokens: 2
      })
      const answer = yield* model.answer({
        ...request,
        question: "Describe everything you know about Marie."
      })
      expect(answer.answer.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(2)
    })
  )

  withModel("gives up at its timeout, loading or generating, and the next question is answered", () =>
    Effect.gen(function* () {
      const queue = makeTaskQueue(4)
      const hasty = LocalLanguageModel.make(smallest, modelsDir, queue, {
        ...limits,
        maxTokens: 512,
        timeoutMs: 50
      })
      const patient = LocalLanguageModel.make(smallest, modelsDir, queue, limits)
      // While the model loads: the ask gives up at once, and the load goes on for the next one.
      expect(yield* failureOf(hasty)).toBe("TimedOut")
      yield* patient.answer(request)
      // While it evaluates a long prompt: generation is stopped after the batch under way.
      const long = context(3, "Marie kept notes on every experiment she ran. ".repeat(40))
      const error = yield* Effect.flip(hasty.answer({ ...request, contexts: [...request.contexts, long] }))
      expect(error.reason).toBe("TimedOut")
      expect(queue.waiting()).toBe(0)
      expect((yield* patient.answer(request)).method).toBe("generative")
    })
  )

  withModel("asks queue one at a time, and past the queue's bound are told the model is busy", () =>
    Effect.gen(function* () {
      const model = LocalLanguageModel.make(smallest, modelsDir, makeTaskQueue(1), limits)
      const outcomes = yield* Effect.all(
        [1, 2, 3].map(() =>
          model.answer(request).pipe(
            Effect.map((a) => a.method as string),
            Effect.catch((e) => Effect.succeed(e.reason as string))
          )
        ),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter((o) => o === "generative")).toHaveLength(2)
      expect(outcomes.filter((o) => o === "Busy")).toHaveLength(1)
    })
  )
})
