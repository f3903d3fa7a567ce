import { type Draft, decodeOptions, makePlugin, type Plugin, PluginFailure } from "@umo/core"
import { Effect, Schema } from "effect"

const Options = Schema.Struct({
  /** Longest content accepted, in characters (the API's 50,000; uploads allow more). */
  maxLength: Schema.optional(Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(1))))
})

/**
 * The capture stage: accepts raw content into the pipeline. Rejects content that is empty or
 * only whitespace, and content longer than `maxLength` (default 50,000 characters).
 */
export const capture = (options: typeof Options.Encoded = {}): Plugin => {
  const maxLength = decodeOptions("capture", Options, options).maxLength ?? 50_000
  return makePlugin({
    name: "capture",
    version: "1.0.0",
    stage: "capture",
    run: (draft: Draft) => {
      if (draft.raw.trim().length === 0) {
        return Effect.fail(new PluginFailure({ reason: "InvalidInput", message: "content is empty" }))
      }
      if (draft.raw.length > maxLength) {
        return Effect.fail(
          new PluginFailure({
            reason: "InvalidInput",
            message: `content is ${draft.raw.length} characters; the limit is ${maxLength}`
          })
        )
      }
      return Effect.succeed(draft)
    }
  })
}
