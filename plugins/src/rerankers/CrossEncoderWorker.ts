/**
 * The thread the cross-encoder runs on (see CrossEncoderReranker.ts): onnxruntime-node runs a
 * model synchronously on the thread that calls it, which must not be the event loop.
 */
import { workerData } from "piscina"
import { pairClassifier } from "../support/PairClassifier.js"

export interface CrossEncoderSetup {
  /** Directory holding `<model>/onnx/model_int8.onnx`, its config and tokenizer. */
  readonly modelsDir: string
  readonly model: string
  /** Tokens of query and passage together; a longer pair loses the end of its passage. */
  readonly maxTokens: number
}

export interface ScoreTask {
  readonly query: string
  readonly passages: ReadonlyArray<string>
}

const setup = workerData as CrossEncoderSetup
const logit = await pairClassifier(setup.modelsDir, setup.model, setup.maxTokens)

/** The passages' logits for the query, in order, each scored alone; no passages is a warm-up call. */
export default async ({ query, passages }: ScoreTask): Promise<Array<number>> => {
  const scores: Array<number> = []
  for (const passage of passages) scores.push(await logit(query, passage))
  return scores
}
