import { existsSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { AnswerModelError, type AnswerModelShape, type AnswerRequest, clipText } from "@umo/core"
import { Effect } from "effect"
import type { TaskQueue } from "../support/TaskQueue.js"
import { generatedAnswer, nothingToGoOn } from "./Citations.js"
import { readableDay, resolveRelativeTime } from "./RelativeDates.js"

/** A GGUF language model file under the models directory, offered to `/v1/ask` as `id`. */
export interface LocalModelFile {
  readonly id: string
  /** Its path under the models directory (`fetch-models` puts it there). */
  readonly file: string
  /** The command that fetches it (default `npm run fetch-models -- --llm`). */
  readonly fetch?: string | undefined
}

/** What installs the runtime and the default models: `npm run fetch-models -- --llm`. */
export const fetchCommand = "npm run fetch-models -- --llm"

/**
 * Where llama.cpp's runtime is: `node-llama-cpp` and its CPU build for this platform, which
 * `npm run fetch-models -- --llm` installs into a prefix of their own, apart from the default
 * install (they are 85 MB that the default extractive answerer never loads). `UMO_LLM_RUNTIME`,
 * default `./.cache/llm`.
 */
export const runtimeDir = (): string => resolve(process.env["UMO_LLM_RUNTIME"] ?? join(".cache", "llm"))

/** The entry module of the `node-llama-cpp` installed in `dir`, or undefined if there is none. */
export const runtimeEntry = (dir: string): string | undefined => {
  const packageDir = join(dir, "node_modules", "node-llama-cpp")
  try {
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      readonly main?: string
      readonly exports?: { readonly "."?: { readonly import?: string } }
    }
    const entry = join(packageDir, manifest.exports?.["."]?.import ?? manifest.main ?? "index.js")
    return existsSync(entry) ? entry : undefined
  } catch {
    return undefined
  }
}

// The few parts of node-llama-cpp's API used here. It is not a dependency of this package (it is
// installed apart, see `runtimeDir`), so its types are not at hand either.
interface LlamaModel {
  readonly tokenize: (text: string) => ReadonlyArray<unknown>
  readonly createContext: (options: {
    readonly contextSize: number
    readonly batchSize: number
    readonly sequences: number
    readonly threads: number
  }) => Promise<{ readonly getSequence: () => LlamaContextSequence }>
}
interface LlamaContextSequence {
  readonly model: LlamaModel
}
interface LlamaChatSession {
  readonly promptWithMeta: (
    text: string,
    options: {
      readonly responsePrefix: string
      readonly maxTokens: number
      readonly temperature: number
      readonly signal: AbortSignal
      readonly stopOnAbortSignal: boolean
    }
  ) => Promise<{ readonly responseText: string }>
  readonly dispose: (options: { readonly disposeSequence: boolean }) => void
}
interface NodeLlamaCpp {
  readonly getLlama: (options: {
    readonly gpu: false
    readonly build: "never"
    readonly logLevel: unknown
  }) => Promise<{ readonly loadModel: (options: { readonly modelPath: string }) => Promise<LlamaModel> }>
  readonly LlamaLogLevel: { readonly error: unknown }
  readonly LlamaChatSession: new (options: {
    readonly contextSequence: LlamaContextSequence
    readonly systemPrompt: string
    readonly autoDisposeSequence: boolean
  }) => LlamaChatSession
}

// The runtime's module, imported once per directory.
const runtimes = new Map<string, Promise<NodeLlamaCpp>>()
export const importRuntime = (dir: string): Promise<NodeLlamaCpp> => {
  const existing = runtimes.get(dir)
  if (existing) return existing
  const entry = runtimeEntry(dir)
  if (entry === undefined)
    return Promise.reject(new Error(`node-llama-cpp is not installed in ${dir}; run \`${fetchCommand}\``))
  const imported = import(pathToFileURL(entry).href) as Promise<NodeLlamaCpp>
  runtimes.set(dir, imported)
  imported.catch(() => runtimes.delete(dir))
  return imported
}

/** What one answer may cost. */
export interface GenerationLimits {
  /** The most tokens an answer may have. */
  readonly maxTokens: number
  /** The longest a caller waits for an answer, its time in the queue included. */
  readonly timeoutMs: number
  /** The most characters of one memory put in the prompt. */
  readonly memoryChars: number
  /**
   * The most tokens of the question and its memories together: the prompt must fit the 4,096-token
   * context, and reading it is most of an answer's time (a few hundred tokens a second here).
   */
  readonly promptTokens: number
  /** Threads llama.cpp computes with. */
  readonly threads: number
}

export const defaultLimits: GenerationLimits = {
  maxTokens: 32,
  timeoutMs: 30_000,
  memoryChars: 1_200,
  promptTokens: 1_500,
  threads: availableParallelism()
}

const system = [
  "You answer questions about the user's life using only the numbered memories you are given.",
  "Reply with the answer alone, in as few words as possible (a name, a place, a date, a number, yes or no,",
  "or a short phrase), then the number of the memory it comes from in square brackets.",
  "Write a date like 7 May 2023; when a memory says yesterday, last week or last year, count from the day",
  "the memory was written. If the memories do not say, reply: I do not know.",
  "",
  "Example:",
  "Memories:",
  "[1] (written 3 June 2024) Ana: We moved to Lisbon last month!",
  "[2] (written 9 June 2024) Ana: My sister Rita plays the cello.",
  "Question: Where did Ana move to?",
  "Answer: Lisbon [1]"
].join("\n")

/** The user's turn: the memories, numbered and dated, each clipped to `memoryChars`, then the question. */
export const prompt = (request: AnswerRequest, memoryChars: number) =>
  [
    "Memories:",
    ...request.contexts.map((c) => {
      // A small model copies "last week" as it finds it; the day it means is worked out for it.
      const relative = resolveRelativeTime(c.content, c.timestamp)
      const when = `written ${readableDay(new Date(c.timestamp))}${relative ? `; the time it mentions: ${relative}` : ""}${c.outdated ? "; since replaced by a newer memory" : ""}${c.current ? "; the newest on what is asked" : ""}`
      return `[${c.index}] (${when}) ${clipText(c.content, memoryChars)}`
    }),
    `Question: ${request.question}`
  ].join("\n")

/**
 * The prompt within `limits.promptTokens` as `count` (the model's tokenizer) counts them: every
 * memory gets an even share, shrunk until the whole fits (text of rare characters takes far more
 * tokens per character than English).
 */
export const fittedPrompt = (
  request: AnswerRequest,
  limits: GenerationLimits,
  count: (text: string) => number
) => {
  let share = Math.min(
    limits.memoryChars,
    Math.floor((limits.promptTokens * 4) / Math.max(1, request.contexts.length))
  )
  let text = prompt(request, share)
  for (let tries = 0; tries < 6; tries++) {
    const tokens = count(text)
    if (tokens <= limits.promptTokens || share <= 16) break
    share = Math.max(16, Math.floor(((share * limits.promptTokens) / tokens) * 0.9))
    text = prompt(request, share)
  }
  return text
}

const failure = (model: string, reason: AnswerModelError["reason"], detail: string, cause?: unknown) =>
  new AnswerModelError({ reason, model, detail, cause })

/**
 * The context sequence a model answers in, loaded once on first use and kept: llama.cpp from the
 * prebuilt CPU binaries installed with `node-llama-cpp` (nothing compiles or downloads).
 */
const load = (runtime: string, path: string, threads: number) => {
  let loading: Promise<LlamaContextSequence> | undefined
  return () => {
    loading ??= (async () => {
      const { getLlama, LlamaLogLevel } = await importRuntime(runtime)
      const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error })
      const model = await llama.loadModel({ modelPath: path })
      // Batches of 256 tokens: an ask past its deadline stops after the batch under way.
      const context = await model.createContext({ contextSize: 4096, batchSize: 256, sequences: 1, threads })
      return context.getSequence()
    })()
    // A load that failed is tried again by the next ask (the file may have been fetched since).
    loading.catch(() => {
      loading = undefined
    })
    return loading
  }
}

// One loaded copy of a file per queue: models made on the same file and queue share it (their
// asks never overlap), while a model on another queue gets its own sequence.
const loaded = new WeakMap<TaskQueue, Map<string, () => Promise<LlamaContextSequence>>>()
const loader = (queue: TaskQueue, runtime: string, path: string, threads: number) => {
  const files = loaded.get(queue) ?? new Map<string, () => Promise<LlamaContextSequence>>()
  loaded.set(queue, files)
  const key = `${runtime}#${path}#${threads}`
  const existing = files.get(key)
  if (existing) return existing
  const made = load(runtime, path, threads)
  files.set(key, made)
  return made
}

/**
 * A local language model as an answer model: a GGUF file run in this process by llama.cpp
 * (`node-llama-cpp`), which computes in its own threads, off the event loop. The prompt gives the
 * retrieved memories numbered and demands a short answer citing them as `[n]`; the markers are
 * then checked against the memories (see `checkCitations`). Each answer is held to
 * `limits.maxTokens` tokens and `limits.timeoutMs` (time in the queue included), and asks run one
 * at a time through `queue`, shared by all local models so that two never split the cores. A model
 * whose file or runtime (`runtime`, default `runtimeDir()`) is not installed is offered as
 * unavailable, with how to fetch it.
 */
export const make = (
  spec: LocalModelFile,
  modelsDir: string,
  queue: TaskQueue,
  limits: GenerationLimits = defaultLimits,
  runtime: string = runtimeDir()
): AnswerModelShape => {
  const path = join(modelsDir, spec.file)
  const missing = [
    ...(runtimeEntry(runtime) === undefined ? [`node-llama-cpp is not installed in ${runtime}`] : []),
    ...(existsSync(path) ? [] : [`${spec.file} is not in ${modelsDir}`])
  ]
  const installed = missing.length === 0
  const sequence = loader(queue, runtime, path, limits.threads)

  /**
   * Generates under `signal`; resolves with the text so far once the signal aborts. A model still
   * loading when the signal aborts goes on loading for the next ask, and this one stops at once.
   */
  const generate = async (request: AnswerRequest, signal: AbortSignal): Promise<string> => {
    const { LlamaChatSession } = await importRuntime(runtime)
    const aborted = new Promise<undefined>((resolve) =>
      signal.addEventListener("abort", () => resolve(undefined))
    )
    const contextSequence = await Promise.race([sequence(), aborted])
    if (contextSequence === undefined || signal.aborted) return ""
    const session = new LlamaChatSession({
      contextSequence,
      systemPrompt: system,
      autoDisposeSequence: false
    })
    try {
      // The sequence keeps what it evaluated: a session that starts with the same system prompt
      // reuses it instead of evaluating it again.
      const text = fittedPrompt(request, limits, (t) => contextSequence.model.tokenize(t).length)
      const { responseText } = await session.promptWithMeta(text, {
        responsePrefix: "Answer:",
        maxTokens: limits.maxTokens,
        temperature: 0,
        signal,
        stopOnAbortSignal: true
      })
      return responseText
    } finally {
      session.dispose({ disposeSequence: false })
    }
  }

  /**
   * The generation as an effect that, when interrupted (the deadline passed, the caller left),
   * stops llama.cpp and waits for it to stop before the queue's next ask starts.
   */
  const generation = (request: AnswerRequest) =>
    Effect.callback<string, AnswerModelError>((resume) => {
      const controller = new AbortController()
      const done = generate(request, controller.signal).then(
        (result) => resume(Effect.succeed(result)),
        (cause) =>
          resume(
            Effect.fail(
              failure(
                spec.id,
                "ProviderFailed",
                `${spec.id} failed: ${String(cause?.message ?? cause)}`,
                cause
              )
            )
          )
      )
      return Effect.promise(() => {
        controller.abort()
        return done
      })
    })

  const answer = (request: AnswerRequest) =>
    Effect.gen(function* () {
      if (!installed) return yield* failure(spec.id, "NotInstalled", unavailable)
      if (request.contexts.length === 0) return nothingToGoOn(request.question)
      const result = yield* queue
        .run(generation(request), () =>
          failure(spec.id, "Busy", `${spec.id} has too many questions waiting; retry shortly`)
        )
        .pipe(
          Effect.timeoutOrElse({
            duration: limits.timeoutMs,
            orElse: () =>
              Effect.fail(
                failure(spec.id, "TimedOut", `${spec.id} did not answer within ${limits.timeoutMs / 1000} s`)
              )
          })
        )
      const text = result.replace(/^\s*Answer:\s*/i, "").trim()
      return generatedAnswer(text, request)
    }).pipe(Effect.withSpan(`AnswerModel.${spec.id}`))

  const unavailable = `${missing.join(" and ")}; run \`${spec.fetch ?? fetchCommand}\``
  return {
    id: spec.id,
    kind: "local",
    method: "generative",
    ...(installed ? {} : { unavailable }),
    answer
  }
}
