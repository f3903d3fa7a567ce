import { type Draft, makePlugin, type Plugin, PluginFailure, qualityOf } from "@umo/core"
import { Effect } from "effect"

/**
 * The validate stage: checks that every entity's offsets point at its text, and sets the quality
 * score (see `qualityOf` in @umo/core for its factors). Missing fields are the pipeline's own
 * check, when it assembles the UMO.
 */
export const validate = (): Plugin =>
  makePlugin({
    name: "validate",
    version: "1.0.0",
    stage: "validate",
    run: (draft: Draft) => {
      const bad = draft.entities.find((e) => draft.content.slice(e.start, e.end) !== e.text)
      return bad
        ? Effect.fail(
            new PluginFailure({
              reason: "Failed",
              message: `entity "${bad.text}" does not match its offsets`
            })
          )
        : Effect.succeed({ ...draft, quality_score: qualityOf(draft).score })
    }
  })
