/**
 * Adds a user-written plugin to the default pipeline: a hashtag extractor for the extract stage
 * (served-plugin/hashtags.ts), run here in-process on one text.
 *
 *   npx tsx examples/custom-plugin.ts "Shipped the beta today #launch #umo with @ana"
 *
 * To serve it from the reference server, see served-plugin/umo.config.ts.
 */
// First, before the packages load: on a Node older than 22.19, run again on a newer one.
import "./on-newer-node.js"
import { Pipeline } from "@umo/core"
import { defaultPlugins, EmbedderChoice } from "@umo/plugins"
import { Effect } from "effect"
import { hashtags } from "./served-plugin/hashtags.js"

const text = process.argv.slice(2).join(" ") || "Shipped the beta today #launch #UMO #launch with @ana"

const program = Effect.gen(function* () {
  const pipeline = Pipeline.make([...defaultPlugins(), hashtags()])
  const umo = yield* pipeline.process({ content: text })
  console.log(
    JSON.stringify(
      {
        hashtags: umo.extensions["hashtags"],
        entities: umo.entities,
        pipeline: umo.pipeline.map((p) => `${p.stage}:${p.name}@${p.version}`),
        semantic_hash: umo.semantic_hash
      },
      null,
      2
    )
  )
})

Effect.runPromise(program.pipe(Effect.provide(EmbedderChoice.layerConfig))).catch((error) => {
  console.error(String(error))
  process.exitCode = 1
})
