/**
 * Transformers.js as the model threads load it (OnnxEmbedderWorker.ts, CrossEncoderWorker.ts):
 * from the local models directory only, nothing fetched.
 */
export const localTransformers = async (modelsDir: string) => {
  const transformers = await import("@huggingface/transformers")
  transformers.env.allowRemoteModels = false
  transformers.env.allowLocalModels = true
  transformers.env.localModelPath = modelsDir
  return transformers
}

/**
 * onnxruntime's session settings for those models.
 * - Its threads do not spin waiting for more work once a call ends. By default they keep both
 *   cores of a small machine busy for a while after each call — just when the search that asked
 *   for a query's embedding ranks its candidates and reads them. bench:search (10,000 memories,
 *   PGlite, 200 questions, one run each way): a search's time beyond its embedding 17.9 → 16.5 ms
 *   at p50 and 30.7 → 23.9 ms at p95; the embedding no slower.
 * - No memory arena and no memory patterns: with them a session keeps, for good, the largest
 *   buffers any call ever needed. One batch of 32 long texts grew the embedder's thread from
 *   414 to 900 MB resident, and it stayed there; without them it peaks at 537 MB and the short
 *   texts a search embeds take as long (18.7 against 18.4 ms each).
 */
export const sessionOptions = {
  enableCpuMemArena: false,
  enableMemPattern: false,
  extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } }
}
