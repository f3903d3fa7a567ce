import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { UpdateJudge } from "@umo/core"
import { LearnedJudge } from "@umo/plugins"
import { Effect, Exit } from "effect"
import { describe, expect } from "vitest"

const recorded = JSON.parse(readFileSync(join(LearnedJudge.recordedDir, "judge.json"), "utf8")) as {
  sha256: string
  graph: string
  max_tokens: number
}
/**
 * The sample's pairs that fit the judge's tokens whole. A longer pair is cut by transformers.js
 * otherwise than by training's tokenizer (`longest_first`), so its score may differ (one of the 48
 * here, by 0.04): a difference between the two tokenizers, left for a later change.
 */
const parity = (
  JSON.parse(readFileSync(join(LearnedJudge.recordedDir, "parity.json"), "utf8")) as Array<{
    earlier: string
    newer: string
    tokens: number
    probability: number
  }>
).filter((p) => p.tokens <= recorded.max_tokens)

/**
 * How far Node's probabilities may stray from training's: the same graph, built at install from
 * the adapter as training built it, run by onnxruntime-node with transformers.js's tokenizer rather
 * than Python's onnxruntime and tokenizers. The graph is int8, and onnxruntime's integer kernels
 * are the CPU's: where training ran (AVX-512) the two agreed within 5e-7 a pair; on an AVX2-only
 * AMD EPYC the activations' dynamic quantization rounds some values the other way, and that
 * carries through the twelve layers (mean 0.008 over the sample, the worst pair 0.154). So the
 * sample is held to the mean and to a bound on every pair, and decisions to agree wherever training's
 * probability is clear of the threshold by more than that bound: a wrong graph or tokenizer moves
 * every pair, far past both.
 */
const meanTolerance = 0.01
const pairTolerance = 0.2
const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"

/** The built judge copied into a models folder of its own, `change`d first. */
const copied = (change: (dir: string) => void) => {
  const dir = mkdtempSync(join(tmpdir(), "umo-judge-"))
  cpSync(join(modelsDir, LearnedJudge.judgeModel), join(dir, LearnedJudge.judgeModel), {
    recursive: true
  })
  change(join(dir, LearnedJudge.judgeModel))
  return dir
}

describe("LearnedJudge", () => {
  it.layer(LearnedJudge.layer({ modelsDir }), { timeout: "120 seconds" })((it) => {
    it.effect("scores the training script's parity sample as training did", () =>
      Effect.gen(function* () {
        const judge = yield* UpdateJudge
        const scores = yield* judge.score(parity.map(({ earlier, newer }) => ({ earlier, newer })))
        const differences = scores.map((s, i) => Math.abs(s - parity[i]!.probability))
        expect(differences.reduce((a, b) => a + b, 0) / differences.length).toBeLessThanOrEqual(meanTolerance)
        expect(Math.max(...differences)).toBeLessThanOrEqual(pairTolerance)
        // Decisions at the threshold agree wherever training's is clear of it by more than the bound.
        for (const [i, s] of scores.entries())
          if (Math.abs(parity[i]!.probability - judge.threshold) > pairTolerance)
            expect(s >= judge.threshold).toBe(parity[i]!.probability >= judge.threshold)
      })
    )

    it.effect("scores a pair the same alone as among others, and nothing for no pairs", () =>
      Effect.gen(function* () {
        const judge = yield* UpdateJudge
        const pair = { earlier: "I live in Tooting.", newer: "Keys to the new flat in Greenwich!" }
        const [alone] = yield* judge.score([pair])
        const among = yield* judge.score([{ earlier: "I have a cat.", newer: "Got a second cat!" }, pair])
        expect(among[1]).toBe(alone)
        expect(alone).toBeGreaterThanOrEqual(0)
        expect(alone).toBeLessThanOrEqual(1)
        expect(yield* judge.score([])).toEqual([])
      })
    )
  })

  it.effect("refuses a model whose SHA-256 is not the one training recorded, naming both", () =>
    Effect.gen(function* () {
      const dir = copied((judge) => {
        const graph = join(judge, recorded.graph)
        const bytes = readFileSync(graph)
        bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1
        writeFileSync(graph, bytes)
      })
      try {
        const made = yield* Effect.exit(Effect.scoped(LearnedJudge.make({ modelsDir: dir })))
        expect(Exit.isFailure(made)).toBe(true)
        const message = String(Exit.isFailure(made) ? made.cause : "")
        expect(message).toContain("not the")
        expect(message).toContain(recorded.sha256)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  )

  it.effect("refuses to start without the built graph, naming the command that builds it", () =>
    Effect.gen(function* () {
      const dir = copied((judge) => rmSync(join(judge, recorded.graph)))
      try {
        const made = yield* Effect.exit(Effect.scoped(LearnedJudge.make({ modelsDir: dir })))
        expect(Exit.isFailure(made)).toBe(true)
        expect(String(Exit.isFailure(made) ? made.cause : "")).toContain("fetch-models")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  )
})
