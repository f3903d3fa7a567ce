import { type Draft, decodeOptions, makePlugin, type Plugin, PluginFailure } from "@umo/core"
import { Effect, Schema } from "effect"
import { visibleCharacter } from "./Normalize.js"

const Options = Schema.Struct({
  /** Longest content accepted, in characters (default 1,000,000: a whole document). */
  maxLength: Schema.optional(Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(1))))
})

/**
 * The capture stage: accepts raw content into the pipeline. Rejects content without a visible
 * character (empty, or only spaces, line breaks and control characters), and content longer than
 * `maxLength` characters (Unicode code points; default 1,000,000, the longest document the service
 * keeps: a text capture's own limit, 50,000, is its request's).
 */
export const capture = (options: typeof Options.Encoded = {}): Plugin => {
  const maxLength = decodeOptions("capture", Options, options).maxLength ?? 1_000_000
  return makePlugin({
    name: "capture",
    version: "1.0.0",
    stage: "capture",
    run: (draft: Draft) => {
      if (!visibleCharacter.test(draft.raw)) {
        return Effect.fail(
          new PluginFailure({ reason: "InvalidInput", message: "content has no visible character" })
        )
      }
      // Code points, as JSON Schema's maxLength counts: an emoji is one character, not two.
      const length = draft.raw.length > maxLength ? [...draft.raw].length : draft.raw.length
      if (length > maxLength) {
        return Effect.fail(
          new PluginFailure({
            reason: "InvalidInput",
            message: `content is ${length} characters; the limit is ${maxLength}`
          })
        )
      }
      return Effect.succeed(draft)
    }
  })
}
