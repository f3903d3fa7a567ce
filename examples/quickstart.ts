/**
 * Runs the default pipeline in-process (no server, no database) and prints the UMO as JSON.
 *
 *   npx tsx examples/quickstart.ts "Marie Curie was born in Warsaw and worked in Paris."
 *
 * The embedder is USE lite (weights ship in npm) unless UMO_EMBEDDER=transformers picks the
 * ONNX embedder that `npm run fetch-models` puts in UMO_MODELS_DIR.
 */
// First, before the packages load: on a Node older than 22.19, run again on a newer one.
import "./on-newer-node.js"
import { Pipeline } from "@umo/core"
import { defaultPlugins, EmbedderChoice } from "@umo/plugins"
import { Effect } from "effect"

const text = process.argv.slice(2).join(" ") || "Marie Curie was born in Warsaw and worked in Paris."

const program = Effect.gen(function* () {
  const pipeline = Pipeline.make(defaultPlugins())
  const { embedding, ...umo } = yield* pipeline.process({ content: text, source: "quickstart" })
  const shown = {
    ...umo,
    // Vectors are long; show their shape and first values only.
    embedding: {
      model: embedding.model,
      dimensions: embedding.dimensions,
      chunks: embedding.chunks.length,
      first_values: embedding.chunks[0]?.vector.slice(0, 4).map((x) => Number(x.toFixed(4)))
    }
  }
  console.log(JSON.stringify(shown, null, 2))
})

Effect.runPromise(program.pipe(Effect.provide(EmbedderChoice.layerConfig))).catch((error) => {
  console.error(String(error))
  process.exitCode = 1
})
