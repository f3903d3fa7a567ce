import { outdates, type StatedFact, type UpdateJudgeShape } from "@umo/core"
import { Effect } from "effect"
import { statedFacts } from "../nlp/Facts.js"

const inSlots = (text: string): ReadonlyArray<StatedFact> =>
  statedFacts(text).map((f) => ({ slot: `${f.subject}\u001f${f.attribute}`, value: f.value, mode: f.mode }))

/**
 * The fact rules as a judge of pairs: 1 where the newer memory's facts, as the rules read them,
 * replace every fact of the earlier one (`outdates`), else 0. bench:judge compares it with the
 * learned judge pair by pair; a deployment that wants the rules (`UMO_UPDATE_JUDGE=rules`) runs
 * them in the store, by the slots they read, with no judge.
 */
export const judge: UpdateJudgeShape = {
  name: "rules",
  threshold: 0.5,
  score: (pairs) =>
    Effect.sync(() => pairs.map((p) => (outdates(inSlots(p.newer), inSlots(p.earlier)) ? 1 : 0)))
}
