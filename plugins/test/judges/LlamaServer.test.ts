/**
 * The language-model judge against llama.cpp's own OpenAI-compatible server (`llama-server`), not
 * a stub: the wire format as a real endpoint speaks it (logprobs, top_logprobs), a model that
 * decides the pairs the learned judge is unsure of, and a server that goes away. Needs the server
 * (`bash scripts/llama-server.sh` builds it into .cache/llama.cpp) and a GGUF model
 * (`npm run fetch-models -- --llm`); without them it says which is missing and skips. CI does not
 * build the server (about 8 minutes); bench:judge reports this judge's figures.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { it } from "@effect/vitest"
import { UpdateJudgeError, type UpdateJudgeShape } from "@umo/core"
import { LanguageModelJudge } from "@umo/plugins"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect } from "vitest"

const root = resolve(import.meta.dirname, "../../..")
const binary = join(root, ".cache/llama.cpp/build/bin/llama-server")
const models = [
  "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
  "SmolLM2-135M-Instruct.Q4_1.gguf",
  "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
]
const model = models.map((m) => join(root, "models/gguf", m)).find((m) => existsSync(m))
const missing = !existsSync(binary)
  ? "no llama-server (bash scripts/llama-server.sh builds it)"
  : model === undefined
    ? "no GGUF model (npm run fetch-models -- --llm)"
    : undefined
if (missing !== undefined) console.warn(`LlamaServer.test: skipped: ${missing}`)

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => done(port))
    })
  })

let server: ChildProcess | undefined
let baseUrl = ""

beforeAll(async () => {
  if (missing !== undefined) return
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  server = spawn(
    binary,
    ["-m", model!, "--host", "127.0.0.1", "--port", String(port), "-c", "2048", "-t", "2", "--no-webui"],
    {
      stdio: "ignore"
    }
  )
  for (let waited = 0; waited < 120_000; waited += 500) {
    const ready = await fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false
    )
    if (ready) return
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error("llama-server did not become ready within 120 s")
}, 130_000)

afterAll(() => {
  server?.kill()
})

const pairs = [
  { earlier: "I live in Madrid.", newer: "Just signed the lease on our flat in Lisbon, moving next week!" },
  { earlier: "I work at Acme as a designer.", newer: "My sister adopted a kitten called Miso." }
]

describe.skipIf(missing !== undefined)("the language-model judge against llama.cpp's server", () => {
  it.effect(
    "reads a probability of yes from the server's own logprobs, for every pair",
    () =>
      Effect.gen(function* () {
        const response = yield* Effect.promise(() =>
          fetch(`${baseUrl}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(LanguageModelJudge.requestBody("local", pairs[0]!))
          }).then((r) => r.json() as Promise<Parameters<typeof LanguageModelJudge.probabilityOfYes>[0]>)
        )
        // The endpoint answers in OpenAI's shape, with the first token's alternatives.
        expect(response.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs?.length).toBeGreaterThan(1)
        const judge = yield* LanguageModelJudge.make({ baseUrl, model: "local", timeoutMs: 60_000 })
        const scores = yield* judge.score(pairs)
        expect(scores).toHaveLength(2)
        for (const p of scores) expect(p >= 0 && p <= 1).toBe(true)
        // Graded, not a word read back: at least one probability lies strictly between 0 and 1.
        expect(scores.some((p) => p > 0 && p < 1)).toBe(true)
      }).pipe(Effect.provide(FetchHttpClient.layer)),
    180_000
  )

  it.effect(
    "decides only what the learned judge is unsure of, and fails as a judge when the server is gone",
    () =>
      Effect.gen(function* () {
        const learned: UpdateJudgeShape = {
          name: "learned",
          threshold: 0.9,
          score: (ps) => Effect.succeed(ps.map((_, i) => (i === 0 ? 0.8 : 0.001)))
        }
        const judge = yield* LanguageModelJudge.make({ baseUrl, model: "local", timeoutMs: 60_000 })
        const both = LanguageModelJudge.decidingUnsure(learned, judge)
        const scores = yield* both.score(pairs)
        // The sure one stands; the unsure one lands on the side of the threshold the model chose.
        expect(scores[1]).toBe(0.001)
        const model = (yield* judge.score([pairs[0]!]))[0]!
        expect(scores[0]! >= both.threshold).toBe(model >= judge.threshold)
        server?.kill()
        yield* Effect.promise(() => new Promise((r) => server?.once("exit", r)))
        const gone = yield* Effect.flip(judge.score([pairs[0]!]))
        expect(gone).toBeInstanceOf(UpdateJudgeError)
        // The learned scores stand when the model cannot answer.
        expect(yield* both.score(pairs)).toEqual([0.8, 0.001])
      }).pipe(Effect.provide(FetchHttpClient.layer)),
    180_000
  )
})
