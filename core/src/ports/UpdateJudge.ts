import { Context, type Effect, Schema } from "effect"

/** Why a judge gave no scores: its model could not be loaded or run, or it did not answer in time. */
export class UpdateJudgeError extends Schema.Error<UpdateJudgeError>("UpdateJudgeError")({
  judge: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return `update judge ${this.judge}: ${this.detail}`
  }
}

/** Two memories of one person (one scope), in content-time order. */
export interface JudgedPair {
  readonly earlier: string
  readonly newer: string
}

/**
 * Decides whether a newer memory makes an earlier one of the same person out of date ("Keys to the
 * new flat in Greenwich!" after "I live in Tooting"), in plain words, with no rules about how the
 * change is worded. Capture asks it about the near memories of the new one's scope, and supersedes
 * those scored at or above `threshold`; a question about how things stand now asks it about its
 * best candidates, and puts the newer first. Adapters: `@umo/plugins/judges`.
 */
export interface UpdateJudgeShape {
  /** Names the judge and its model, as capture warnings and bench reports show it. */
  readonly name: string
  /** The probability from which a pair is an update (chosen on calibration data, never on an evaluation set). */
  readonly threshold: number
  /** One probability per pair, in order: that the newer memory makes the earlier one out of date. */
  readonly score: (pairs: ReadonlyArray<JudgedPair>) => Effect.Effect<ReadonlyArray<number>, UpdateJudgeError>
}

export class UpdateJudge extends Context.Service<UpdateJudge, UpdateJudgeShape>()("@umo/core/UpdateJudge") {}
