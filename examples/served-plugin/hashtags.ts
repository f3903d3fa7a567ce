/**
 * A user-written plugin: a hashtag extractor for the extract stage. It follows the contract in
 * core/src/Plugin.ts: a factory checks its options once and returns a named, versioned value;
 * `run` is pure and returns a new draft; its own findings go under `extensions[name]` (kept on the
 * UMO, covered by the semantic hash, returned by `GET /v1/memories/{id}` and told by `explain`).
 */
import { addMessage, type Draft, decodeOptions, makePlugin, type Plugin } from "@umo/core"
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
