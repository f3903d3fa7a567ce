/**
 * The thread the learned update judge runs on (see LearnedJudge.ts): a cross-encoder reading the
 * earlier memory and the newer one as one input, as training/judge/train.py trained it.
 */
import { workerData } from "piscina"
import { localTransformers, sessionOptions } from "../support/LocalTransformers.js"

export interface LearnedJudgeSetup {
  /** The directory holding the judge's directory (`modelsDir/model/onnx/model_int8.onnx`). */
  readonly modelsDir: string
  readonly model: string
  /** Tokens of both memories together, as in training; a longer pair loses its end. */
  readonly maxTokens: number
}

export interface JudgeTask {
  readonly pairs: ReadonlyArray<{ readonly earlier: string; readonly newer: string }>
}

interface Tensor {
  readonly data: ArrayLike<number>
}
type Tokenizer = (
  text: string,
  options: { text_pair: string; truncation: boolean; max_length: number }
) => unknown
type Model = (inputs: unknown) => Promise<{ logits: Tensor }>

const setup = workerData as LearnedJudgeSetup
const transformers = await localTransformers(setup.modelsDir)
const tokenize = (await transformers.AutoTokenizer.from_pretrained(setup.model)) as unknown as Tokenizer
const model = (await transformers.AutoModelForSequenceClassification.from_pretrained(setup.model, {
  dtype: "int8",
  session_options: sessionOptions
})) as unknown as Model

/**
 * Each pair's probability that its newer memory makes the earlier out of date, in order. One pair
 * per model call: the int8 graph quantizes its activations with one scale over a batch, so a pair
 * scored beside others would score a little differently; alone it always scores the same, as in
 * training's calibration.
 */
export default async ({ pairs }: JudgeTask): Promise<Array<number>> => {
  const scores: Array<number> = []
  for (const { earlier, newer } of pairs) {
    const inputs = tokenize(earlier, { text_pair: newer, truncation: true, max_length: setup.maxTokens })
    const logit = Number((await model(inputs)).logits.data[0])
    scores.push(1 / (1 + Math.exp(-logit)))
  }
  return scores
}
