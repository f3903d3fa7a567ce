/**
 * What an NLP worker thread runs (see Workers.ts): the extraction functions of the default
 * plugins, by name. Kept to plain data in and out: a worker's arguments and results are copied.
 */
import { findEnrichment } from "./Enrich.js"
import { findEntities } from "./Entities.js"
import { statedFacts } from "./Facts.js"
import { readNormalized } from "./Normalize.js"
import { findTriples } from "./SvoTriples.js"
import type { TaskMessage, TaskName } from "./Workers.js"

export const tasks = {
  normalized: readNormalized,
  entities: findEntities,
  triples: findTriples,
  enrichment: findEnrichment,
  facts: statedFacts
} satisfies Record<TaskName, (...args: never) => unknown>

/** Each call's result, or why it failed: one call's failure fails none of the others. */
export default ({ calls }: TaskMessage) =>
  calls.map(({ task, args }) => {
    try {
      return { ok: (tasks[task] as (...a: ReadonlyArray<unknown>) => unknown)(...args) }
    } catch (cause) {
      return { failed: String(cause) }
    }
  })
