/**
 * The thread the learned update judge runs on (see LearnedJudge.ts): a cross-encoder reading the
 * earlier memory and the newer one as one input, as training/judge/student.py trained it.
 */
import { workerData } from "piscina"
import { type Cancellable, cancelled } from "../support/ModelCall.js"
import { pairClassifier } from "../support/PairClassifier.js"

export interface LearnedJudgeSetup {
  /** The directory holding the judge's directory (`modelsDir/model/onnx/model_int8.onnx`). */
  readonly modelsDir: string
  readonly model: string
  /** Tokens of both memories together, as in training; a longer pair loses its end. */
  readonly maxTokens: number
  /** Which graph training shipped: int8 unless quantizing lost its scores. */
  readonly dtype: "int8" | "fp32"
}

export interface JudgeTask extends Cancellable {
  readonly pairs: ReadonlyArray<{ readonly earlier: string; readonly newer: string }>
}

const setup = workerData as LearnedJudgeSetup
const logit = await pairClassifier(setup.modelsDir, setup.model, setup.maxTokens, setup.dtype)

/**
 * Each pair's probability that its newer memory makes the earlier out of date, in order, each scored
 * alone; fewer once the caller has given up (the answer is then dropped).
 */
export default async (task: JudgeTask): Promise<Array<number>> => {
  const scores: Array<number> = []
  for (const { earlier, newer } of task.pairs) {
    if (cancelled(task)) break
    scores.push(1 / (1 + Math.exp(-(await logit(earlier, newer)))))
  }
  return scores
}
