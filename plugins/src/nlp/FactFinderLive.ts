/**
 * The FactFinder port in English: the fact rules (`statedFacts`), the slot sense by the embedder's
 * sentence vectors where no rule read (`SlotSense`), and the readings of questions and asides the
 * currency order uses.
 * @module
 */
import { Embedder, FactFinder, type FactFinderShape } from "@umo/core"
import { Config, Duration, Effect, Layer } from "effect"
import { isAside, opensAhead, othersNewsUnasked } from "./Asides.js"
import { findEntities } from "./Entities.js"
import { askedFacts } from "./FactQuestions.js"
import { statedFacts } from "./Facts.js"
import { namesRelative, speaksOf } from "./FactTopics.js"
import * as SlotSense from "./SlotSense.js"
import { runNlp } from "./Workers.js"

/** Whether captures read facts with the slot sense besides the rules (`UMO_SLOT_SENSE`, default true). */
export const slotSenseConfig = Config.Boolean("UMO_SLOT_SENSE").pipe(Config.withDefault(true))

/**
 * The finder; `embed` undefined: the rules alone (the sense is off). The sense is made on first
 * use, once: captures arriving while it is being made wait for that one making (each used to make
 * its own, so a first burst of 24 captures embedded the examples 24 times). One the embedder could
 * not make states nothing for the captures that waited for it, and is made again on the next capture.
 */
export const make = (embed: SlotSense.Embed | undefined): Effect.Effect<FactFinderShape> =>
  Effect.map(
    embed === undefined
      ? Effect.succeed(Effect.succeed(SlotSense.silent))
      : Effect.cachedWithTTL(SlotSense.make(embed), (made) =>
          made._tag === "Success" ? Duration.infinity : Duration.zero
        ),
    (ready) => ({
      stated: statedFacts,
      read: (text) =>
        Effect.gen(function* () {
          // A worker's failure reads them here: the rules are the same function either way.
          const rules = yield* runNlp("facts", statedFacts, text).pipe(
            Effect.orElseSucceed(() => statedFacts(text))
          )
          const sense = yield* ready.pipe(Effect.orElseSucceed(() => SlotSense.silent))
          return [...rules, ...(yield* sense.facts(text, rules))]
        }),
      names: findEntities,
      asked: askedFacts,
      speaksOf,
      namesRelative,
      isAside,
      opensAhead,
      othersNewsUnasked
    })
  )

/** The rules alone, no embedder. */
export const layer = Layer.effect(FactFinder, make(undefined))

/** The rules, and the slot sense by the Embedder unless `UMO_SLOT_SENSE=false`. */
export const layerConfig = Layer.effect(
  FactFinder,
  Effect.gen(function* () {
    const embedder = yield* Embedder
    return yield* make((yield* slotSenseConfig) ? embedder.embed : undefined)
  })
)
