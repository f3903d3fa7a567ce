/**
 * The thread the cross-encoder runs on (see CrossEncoderReranker.ts): onnxruntime-node runs a
 * model synchronously on the thread that calls it, which must not be the event loop.
 */
import { workerData } from "piscina"
import { localTransformers, sessionOptions } from "../support/LocalTransformers.js"

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

interface Tensor {
  readonly data: ArrayLike<number>
}
type Tokenizer = (
  text: string,
  options: { text_pair: string; truncation: boolean; max_length: number }
) => unknown
type Model = (inputs: unknown) => Promise<{ logits: Tensor }>

const setup = workerData as CrossEncoderSetup
const transformers = await localTransformers(setup.modelsDir)
const tokenize = (await transformers.AutoTokenizer.from_pretrained(setup.model)) as unknown as Tokenizer
const model = (await transformers.AutoModelForSequenceClassification.from_pretrained(setup.model, {
  dtype: "int8",
  session_options: sessionOptions
})) as unknown as Model

/**
 * The passages' logits for the query, in order; no passages is a warm-up call. One pair per call:
 * the int8 graph quantizes its activations with one scale over a batch, so a pair's score would
 * depend on its batch-mates; alone, the same pair always scores the same.
 */
export default async ({ query, passages }: ScoreTask): Promise<Array<number>> => {
  const scores: Array<number> = []
  for (const passage of passages) {
    const inputs = tokenize(query, { text_pair: passage, truncation: true, max_length: setup.maxTokens })
    scores.push(Number((await model(inputs)).logits.data[0]))
  }
  return scores
}
