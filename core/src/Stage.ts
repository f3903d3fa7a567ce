import { Schema } from "effect"

/** The seven pipeline stages, in the order every pipeline runs them (spec: "What the service does"). */
export const stages = ["capture", "normalize", "extract", "enrich", "parse", "embed", "validate"] as const

export type Stage = (typeof stages)[number]

export const Stage = Schema.Literals(stages)

/** Position of a stage in the pipeline; plugins are ordered by it. */
export const stageIndex = (stage: Stage): number => stages.indexOf(stage)
