import { outdates, type StatedFact, UpdateJudge, type UpdateJudgeShape } from "@umo/core"
import { Effect, Layer } from "effect"
import { statedFacts } from "../nlp/Facts.js"

const inSlots = (text: string): ReadonlyArray<StatedFact> =>
  statedFacts(text).map((f) => ({ slot: `${f.subject}\u001f${f.attribute}`, value: f.value, mode: f.mode }))

/**
 * The fact rules as a judge (`UMO_UPDATE_JUDGE=rules`): 1 where the newer memory's facts, as the
 * rules read them, replace every fact of the earlier one (`outdates`), else 0. Kept to compare
 * with the learned judge (bench:updates, bench:judge) and for a deployment that wants no model.
 */
export const judge: UpdateJudgeShape = {
  name: "rules",
  threshold: 0.5,
  score: (pairs) =>
    Effect.sync(() => pairs.map((p) => (outdates(inSlots(p.newer), inSlots(p.earlier)) ? 1 : 0)))
}

export const layer = Layer.succeed(UpdateJudge, judge)
