import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { UpdateJudge, UpdateJudgeError, type UpdateJudgeShape } from "@umo/core"
import { Effect, Layer, Schema } from "effect"
import { fetchModelsCommand, modelsDirConfig } from "../support/ModelsDir.js"
import { modelThread } from "../support/ModelThread.js"
import type { JudgeTask, LearnedJudgeSetup } from "./LearnedJudgeWorker.js"

/**
 * What training recorded of the judge, shipped with this package (training/judge): its adapter,
 * graph skeleton and `judge.json`, from which fetch-models builds the graph into the models folder.
 */
export const recordedDir = fileURLToPath(new URL("../../models/update-judge/", import.meta.url))
/** The judge's folder in the models folder (`UMO_MODELS_DIR`), as fetch-models builds it. */
export const judgeModel = "update-judge"

/** What training recorded (`judge.json`): the graph, its SHA-256, the threshold. */
const Manifest = Schema.Struct({
  model: Schema.String,
  graph: Schema.Literals(["onnx/model_int8.onnx", "onnx/model.onnx"]),
  sha256: Schema.String,
  threshold: Schema.Number,
  max_tokens: Schema.Number
})
export type Manifest = typeof Manifest.Type

export interface LearnedJudgeOptions {
  /** The models folder holding the built judge (default `UMO_MODELS_DIR`'s). */
  readonly modelsDir?: string
  /** Where training's record is (default the one this package ships). */
  readonly recorded?: string
  /** Default: the threshold training chose on its calibration split. */
  readonly threshold?: number
  /** Seconds the model stays loaded after its last call; 0, for good (default 300). */
  readonly idleSeconds?: number
}

/**
 * Training's record, once the built graph is checked against the SHA-256 it records: a graph with
 * other bytes (a partial build, a file edited by hand, a model trained again) is refused, never run.
 */
export const checkedManifest = (recorded: string, built: string): Effect.Effect<Manifest, UpdateJudgeError> =>
  Effect.gen(function* () {
    const judge = `learned (${built})`
    const manifestPath = join(recorded, "judge.json")
    const manifest = yield* Effect.try({
      try: () => Schema.decodeUnknownSync(Manifest)(JSON.parse(readFileSync(manifestPath, "utf8"))),
      catch: (cause) =>
        new UpdateJudgeError({ judge, detail: `${manifestPath} is not a judge manifest`, cause })
    })
    const graph = join(built, manifest.graph)
    if (!existsSync(graph))
      return yield* new UpdateJudgeError({
        judge,
        detail: `the update judge is not built in ${built} (${manifest.graph}); run \`${fetchModelsCommand(["--judge"])}\``
      })
    const digest = createHash("sha256").update(readFileSync(graph)).digest("hex")
    if (digest !== manifest.sha256)
      return yield* new UpdateJudgeError({
        judge,
        detail: `${graph} has SHA-256 ${digest}, not the ${manifest.sha256} training recorded; refusing to run it (build it again: \`${fetchModelsCommand(["--judge"])}\`)`
      })
    return manifest
  })

/**
 * The learned update judge: all-mpnet-base-v2 with the LoRA adapter trained here (training/judge),
 * as fetch-models builds it, on a thread of its own that loads the model on the first call.
 */
export const make = (options: LearnedJudgeOptions = {}) =>
  Effect.gen(function* () {
    const modelsDir = options.modelsDir ?? (yield* modelsDirConfig)
    const manifest = yield* checkedManifest(options.recorded ?? recordedDir, join(modelsDir, judgeModel))
    const name = `learned:${manifest.model}@${manifest.sha256.slice(0, 12)}`
    const setup: LearnedJudgeSetup = {
      modelsDir,
      model: judgeModel,
      maxTokens: manifest.max_tokens,
      dtype: manifest.graph === "onnx/model.onnx" ? "fp32" : "int8"
    }
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
