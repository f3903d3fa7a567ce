import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { UpdateJudge, UpdateJudgeError, type UpdateJudgeShape } from "@umo/core"
import { Effect, Layer, Schema } from "effect"
import { modelThread } from "../support/ModelThread.js"
import type { JudgeTask, LearnedJudgeSetup } from "./LearnedJudgeWorker.js"

/** The judge trained in this repository (training/judge), shipped with this package. */
export const shippedModelsDir = fileURLToPath(new URL("../../models/", import.meta.url))
export const shippedModel = "update-judge"

/** What training recorded beside the model (`judge.json`): its SHA-256 and threshold. */
const Manifest = Schema.Struct({
  model: Schema.String,
  sha256: Schema.String,
  threshold: Schema.Number,
  max_tokens: Schema.Number
})
export type Manifest = typeof Manifest.Type

export interface LearnedJudgeOptions {
  /** Default: the model this package ships. */
  readonly modelsDir?: string
  readonly model?: string
  /** Default: the threshold training chose on its calibration split. */
  readonly threshold?: number
  /** Seconds the model stays loaded after its last call; 0, for good (default 300). */
  readonly idleSeconds?: number
}

const graphPath = (dir: string) => join(dir, "onnx", "model_int8.onnx")

/**
 * The model's manifest, once its graph is checked against the SHA-256 training recorded: a graph
 * with other bytes (a partial download, a file edited by hand, a model trained again without its
 * manifest) is refused, never run.
 */
export const checkedManifest = (dir: string): Effect.Effect<Manifest, UpdateJudgeError> =>
  Effect.gen(function* () {
    const judge = `learned (${dir})`
    const manifestPath = join(dir, "judge.json")
    if (!existsSync(manifestPath) || !existsSync(graphPath(dir)))
      return yield* new UpdateJudgeError({
        judge,
        detail: `the update judge's model is not in ${dir} (judge.json and onnx/model_int8.onnx); restore it from the checkout or run \`npm run train:judge\``
      })
    const manifest = yield* Effect.try({
      try: () => Schema.decodeUnknownSync(Manifest)(JSON.parse(readFileSync(manifestPath, "utf8"))),
      catch: (cause) =>
        new UpdateJudgeError({ judge, detail: `${manifestPath} is not a judge manifest`, cause })
    })
    const digest = createHash("sha256")
      .update(readFileSync(graphPath(dir)))
      .digest("hex")
    if (digest !== manifest.sha256)
      return yield* new UpdateJudgeError({
        judge,
        detail: `${graphPath(dir)} has SHA-256 ${digest}, not the ${manifest.sha256} its judge.json records; refusing to run it (restore the file, or retrain with \`npm run train:judge\`)`
      })
    return manifest
  })

/**
 * The learned update judge: a MiniLM cross-encoder fine-tuned here (training/judge), int8, on a
 * thread of its own that loads the model on the first call (about 0.3 s).
 */
export const make = (options: LearnedJudgeOptions = {}) =>
  Effect.gen(function* () {
    const modelsDir = options.modelsDir ?? shippedModelsDir
    const model = options.model ?? shippedModel
    const manifest = yield* checkedManifest(join(modelsDir, model))
    const name = `learned:${manifest.model}@${manifest.sha256.slice(0, 12)}`
    const setup: LearnedJudgeSetup = { modelsDir, model, maxTokens: manifest.max_tokens }
    const { run } = yield* modelThread<JudgeTask, Array<number>>(
      import.meta.url,
      "LearnedJudgeWorker",
      setup,
      options.idleSeconds
    )
    const score: UpdateJudgeShape["score"] = (pairs) =>
      pairs.length === 0
        ? Effect.succeed([])
        : Effect.tryPromise({
            try: (signal) => run({ pairs }, signal),
            catch: (cause) =>
              new UpdateJudgeError({ judge: name, detail: `judging failed: ${String(cause)}`, cause })
          }).pipe(Effect.withSpan("UpdateJudge.score", { attributes: { pairs: pairs.length } }))
    return { name, threshold: options.threshold ?? manifest.threshold, score } satisfies UpdateJudgeShape
  })

export const layer = (options: LearnedJudgeOptions = {}) => Layer.effect(UpdateJudge, make(options))
