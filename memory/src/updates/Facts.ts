import type { StatedFact, Umo } from "@umo/core"
import { type Fact, SlotSense, statedFacts } from "@umo/plugins/nlp"
import { Config, Duration, Effect } from "effect"
import { factScope } from "./Scope.js"

/** Whether captures infer updates unless they say otherwise (`UMO_INFER_UPDATES`, default true). */
export const inferUpdatesConfig = Config.Boolean("UMO_INFER_UPDATES").pipe(Config.withDefault(true))

/**
 * Whether captures read facts with the slot sense besides the rules (`UMO_SLOT_SENSE`, default
 * true; see `factFinder`).
 */
export const slotSenseConfig = Config.Boolean("UMO_SLOT_SENSE").pipe(Config.withDefault(true))

const separator = "\u001f"

type Scoped = Pick<Umo, "content" | "user_id" | "agent_id">

const inSlots = (umo: Scoped, facts: ReadonlyArray<Fact>): ReadonlyArray<StatedFact> => {
  const scope = factScope(umo)
  return facts.map((fact) => ({
    slot: [scope, fact.subject, fact.attribute].join(separator),
    value: fact.value,
    mode: fact.mode
  }))
}

/**
 * The facts a memory states by the fact finder's rules alone, each in its slot: its scope, subject
 * and attribute, as one key. Imports read facts this way (the slot sense reads captures only).
 */
export const factsOf = (umo: Scoped): ReadonlyArray<StatedFact> => inSlots(umo, statedFacts(umo.content))

/**
 * The facts a captured memory states: the rules', and those the slot sense finds where no rule
 * read (by the embedder's sentence vectors; see `SlotSense`), unless `embed` is undefined (the
 * sense is off). The sense is made on first use, once: captures arriving while it is being made
 * wait for that one making (each used to make its own, so a first burst of 24 captures embedded
 * the examples 24 times). One the embedder could not make states nothing for the captures that
 * waited for it, and is made again on the next capture.
 */
export const factFinder = (embed: SlotSense.Embed | undefined) =>
  Effect.map(
    embed === undefined
      ? Effect.succeed(Effect.succeed(SlotSense.silent))
      : Effect.cachedWithTTL(SlotSense.make(embed), (made) =>
          made._tag === "Success" ? Duration.infinity : Duration.zero
        ),
    (ready) =>
      (umo: Scoped): Effect.Effect<ReadonlyArray<StatedFact>> =>
        Effect.gen(function* () {
          const rules = statedFacts(umo.content)
          const sense = yield* ready.pipe(Effect.orElseSucceed(() => SlotSense.silent))
          const sensed = yield* sense.facts(umo.content, rules)
          return inSlots(umo, [...rules, ...sensed])
        })
  )

/** The subject and attribute of a slot `factsOf` made. */
export const slotParts = (slot: string): { readonly subject: string; readonly attribute: string } => {
  const parts = slot.split(separator)
  return { subject: parts.at(-2) ?? "", attribute: parts.at(-1) ?? "" }
}
