import { localTransformers, sessionOptions } from "./LocalTransformers.js"

interface Tensor {
  readonly data: ArrayLike<number>
}
type Tokenizer = (
  text: string,
  options: { text_pair: string; truncation: boolean; max_length: number }
) => unknown
type Model = (inputs: unknown) => Promise<{ logits: Tensor }>

/**
 * A cross-encoder's int8 graph under `modelsDir/model`, loaded by transformers.js on the calling
 * thread (a model thread: CrossEncoderWorker.ts, LearnedJudgeWorker.ts): the logit of one pair of
 * texts read together, the pair cut to `maxTokens`. One pair per call: the int8 graph quantizes
 * its activations with one scale over a batch, so a pair scored beside others would score a
 * little differently; alone it always scores the same.
 */
export const pairClassifier = async (
  modelsDir: string,
  model: string,
  maxTokens: number,
  dtype: "int8" | "fp32" = "int8"
) => {
  const transformers = await localTransformers(modelsDir)
  const tokenize = (await transformers.AutoTokenizer.from_pretrained(model)) as unknown as Tokenizer
  const classify = (await transformers.AutoModelForSequenceClassification.from_pretrained(model, {
    dtype,
    session_options: sessionOptions
  })) as unknown as Model
  return async (first: string, second: string): Promise<number> =>
    Number(
      (await classify(tokenize(first, { text_pair: second, truncation: true, max_length: maxTokens }))).logits
        .data[0]
    )
}
