/**
 * Mem0's batch update and batch delete (`PUT` and `DELETE /v1/batch/`, `{"memories": [...]}`), each
 * one call of the Memory service: all of them changed or deleted, or none, with UMO's receipts.
 * @module
 */
import { Memory } from "@umo/memory"
import { Effect } from "effect"
import { checkFields, clientDefaults, invalid, isObject, refusalInMem0Words } from "./Mem0Fields.js"
import type { Mem0Call } from "./Mem0Request.js"

/** The body's `memories`: a list of objects, each with a `memory_id` (and, to update, `text` or `metadata`). */
const memoriesOf = (body: Readonly<Record<string, unknown>>, fields: ReadonlyArray<string>, most: number) =>
  Effect.gen(function* () {
    yield* Effect.fromResult(checkFields(body, { ...clientDefaults, memories: "use" }))
    const memories = body["memories"]
    if (!Array.isArray(memories) || memories.length === 0 || memories.length > most)
      return yield* invalid("memories", `must be a list of 1 to ${most} objects with a memory_id`)
    for (const [i, item] of memories.entries()) {
      if (!isObject(item) || typeof item["memory_id"] !== "string")
        return yield* invalid(`memories.${i}`, "must be an object with a memory_id")
      yield* Effect.fromResult(
        checkFields(item, Object.fromEntries(fields.map((f) => [f, "use" as const])), `memories.${i}.`)
      )
    }
    return memories as ReadonlyArray<Readonly<Record<string, unknown>>>
  })

/** UMO names a change's place `updates.<i>`, its text `content`: a refusal names them as the caller did. */
const asMem0Words = refusalInMem0Words([
  [/\bupdates\.(\d+)/g, "memories.$1"],
  [/\bcontent\b/g, "text"]
])

/**
 * `batch_update`: each memory's new text (and metadata) as a new version superseding it, all in one
 * transaction (UMO's `updateMany`, at most 100), or none. The answer adds UMO's results: each new
 * version's id and signed receipt.
 */
export const batchUpdate: Mem0Call = (request) =>
  Effect.gen(function* () {
    const memories = yield* memoriesOf(request.body, ["memory_id", "text", "metadata"], 100)
    const { results } = yield* Memory.use((memory) =>
      memory.updateMany({
        updates: memories.map((m) => ({
          umo_id: m["memory_id"] as string,
          ...(m["text"] === undefined || m["text"] === null ? {} : { content: m["text"] as string }),
          ...(m["metadata"] === undefined || m["metadata"] === null
            ? {}
            : { metadata: m["metadata"] as Record<string, never> })
        }))
      })
    ).pipe(Effect.mapError(asMem0Words))
    return { message: `Successfully updated ${results.length} memories`, results }
  })

/** `batch_delete`: the memories deleted as one unit with one signed erasure receipt (at most 1,000), or none. */
export const batchDelete: Mem0Call = (request) =>
  Effect.gen(function* () {
    const memories = yield* memoriesOf(request.body, ["memory_id"], 1_000)
    const erased = yield* Memory.use((memory) =>
      memory.forgetMany({ umo_ids: memories.map((m) => m["memory_id"] as string) })
    )
    return { message: `Successfully deleted ${erased.forgotten} memories`, ...erased }
  })
