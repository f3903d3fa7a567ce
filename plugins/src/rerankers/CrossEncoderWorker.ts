/**
 * The thread the cross-encoder runs on (see CrossEncoderReranker.ts): onnxruntime-node runs a
 * model synchronously on the thread that calls it, which must not be the event loop.
 */
import { workerData } from "piscina"
import { type Cancellable, cancelled } from "../support/ModelCall.js"
import { pairClassifier } from "../support/PairClassifier.js"

export interface CrossEncoderSetup {
  /** Directory holding `<model>/onnx/model_int8.onnx`, its config and tokenizer. */
  readonly modelsDir: string
  readonly model: string
  /** Tokens of query and passage together; a longer pair loses the end of its passage. */
  readonly maxTokens: number
}

export interface ScoreTask extends Cancellable {
  readonly query: string
  readonly passages: ReadonlyArray<string>
}

const setup = workerData as CrossEncoderSetup
const logit = await pairClassifier(setup.modelsDir, setup.model, setup.maxTokens)

/**
 * The passages' logits for the query, in order, each scored alone; no passages is a warm-up call.
 * Fewer once the caller has given up (the answer is then dropped).
 */
export default async (task: ScoreTask): Promise<Array<number>> => {
  const scores: Array<number> = []
  for (const passage of task.passages) {
    if (cancelled(task)) break
    scores.push(await logit(task.query, passage))
  }
  return scores
}
