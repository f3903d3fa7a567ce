/**
 * Adds a user-written plugin to the default pipeline: a hashtag extractor for the extract stage.
 *
 *   npx tsx examples/custom-plugin.ts "Shipped the beta today #launch #umo with @ana"
 *
 * The plugin follows the contract in core/src/Plugin.ts: a factory checks its options once and
 * returns a named, versioned value; `run` is pure and returns a new draft; its own findings go
 * under `extensions[name]` (kept on the UMO and covered by the semantic hash).
 */
import { addMessage, type Draft, decodeOptions, makePlugin, Pipeline, type Plugin } from "@umo/core"
import { defaultPlugins, EmbedderChoice } from "@umo/plugins"
import { Effect, Schema } from "effect"

const HashtagOptions = Schema.Struct({
  /** Fold tags to lowercase so #Launch and #launch are one tag. */
  lowercase: Schema.optional(Schema.Boolean)
})

export const hashtags = (options: typeof HashtagOptions.Encoded = {}): Plugin => {
  const { lowercase = true } = decodeOptions("hashtags", HashtagOptions, options)
  return makePlugin({
    name: "hashtags",
    version: "1.0.0",
    stage: "extract",
    run: (draft: Draft) =>
      Effect.sync(() => {
        const found = [...draft.content.matchAll(/(?<![\p{L}\p{N}_])#([\p{L}\p{N}_]+)/gu)].map((m) =>
          lowercase ? m[1]!.toLowerCase() : m[1]!
        )
        const tags = [...new Set(found)]
        const next = { ...draft, extensions: { ...draft.extensions, hashtags: tags } }
        return tags.length === 0 ? addMessage(next, "info", "no hashtags found") : next
      })
  })
}

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
