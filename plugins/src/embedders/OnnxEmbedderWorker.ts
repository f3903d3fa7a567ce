/**
 * The thread the ONNX embedding model runs on (see TransformersEmbedder.ts). onnxruntime-node runs
 * a model synchronously on the thread that calls it — about 100 ms for a 1,000-character chunk on
 * two cores — so on the event loop every embedding would hold up every other request.
 */
import { workerData } from "piscina"
import { localTransformers, sessionOptions } from "../support/LocalTransformers.js"
import { cancelled } from "../support/ModelCall.js"
import type { EmbedTask } from "./EmbedderThread.js"

export interface OnnxEmbedderSetup {
  /** Directory holding `<model>/onnx/…` and its tokenizer. */
  readonly modelsDir: string
  readonly model: string
  readonly precision: "int8" | "fp32"
  readonly pooling: "mean" | "cls"
}

type Extractor = (
  texts: Array<string>,
  options: { pooling: "mean" | "cls"; normalize: boolean }
) => Promise<{ tolist: () => Array<Array<number>> }>

const setup = workerData as OnnxEmbedderSetup
const transformers = await localTransformers(setup.modelsDir)
const extract = (await transformers.pipeline("feature-extraction", setup.model, {
  dtype: setup.precision,
  session_options: sessionOptions
})) as unknown as Extractor

/** The texts' vectors, unit length, in order; no texts is a warm-up call (the model is loaded),
 * and none once the caller has given up before it started. */
export default async ({ texts, ...task }: EmbedTask): Promise<Array<Array<number>>> =>
  texts.length === 0 || cancelled(task)
    ? []
    : (await extract([...texts], { pooling: setup.pooling, normalize: true })).tolist()
