import { FactFinder, type FoundFact, type StatedFact, type Umo } from "@umo/core"
import { Config, Effect } from "effect"
import { factScope } from "./Scope.js"

/** Whether captures infer updates unless they say otherwise (`UMO_INFER_UPDATES`, default true). */
export const inferUpdatesConfig = Config.Boolean("UMO_INFER_UPDATES").pipe(Config.withDefault(true))

const separator = "\u001f"

type Scoped = Pick<Umo, "content" | "user_id" | "agent_id">

const inSlots = (umo: Scoped, facts: ReadonlyArray<FoundFact>): ReadonlyArray<StatedFact> => {
  const scope = factScope(umo)
  return facts.map((fact) => ({
    slot: [scope, fact.subject, fact.attribute].join(separator),
    value: fact.value,
    mode: fact.mode
  }))
}

/**
 * The facts a memory states, each in its slot: its scope, subject and attribute, as one key, by
 * the FactFinder port. `captured`: all the finder reads (its rules and its sense by meaning);
 * `imported`: what it reads at once (imports bring many memories, and state what they stated).
 */
export const make = Effect.gen(function* () {
  const finder = yield* FactFinder
  return {
    captured: (umo: Scoped): Effect.Effect<ReadonlyArray<StatedFact>> =>
      Effect.map(finder.read(umo.content), (facts) => inSlots(umo, facts)),
    imported: (umo: Scoped): ReadonlyArray<StatedFact> => inSlots(umo, finder.stated(umo.content))
  }
})

/** The subject and attribute of a slot `make` made. */
export const slotParts = (slot: string): { readonly subject: string; readonly attribute: string } => {
  const parts = slot.split(separator)
  return { subject: parts.at(-2) ?? "", attribute: parts.at(-1) ?? "" }
}
