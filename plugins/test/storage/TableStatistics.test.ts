import { it } from "@effect/vitest"
import { Database } from "@umo/plugins"
import { Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import * as TableStatistics from "../../src/storage/TableStatistics.js"

/** -1 until the table has been analyzed (or vacuumed) once. */
const analyzedTuples = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ tuples: number }>`
    SELECT reltuples::float8 AS tuples FROM pg_class WHERE oid = 'memory_chunks'::regclass`
  return Number(row?.tuples)
})

describe("TableStatistics", () => {
  it.live("analyzes the search tables once 50 + 10% of the memories have been written", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const statistics = yield* TableStatistics.make(sql, yield* Effect.scope)
        yield* statistics.wrote(49)
        // Give a wrongly started analysis time to finish before looking.
        yield* Effect.sleep("200 millis")
        expect(yield* analyzedTuples).toBe(-1)
        yield* statistics.wrote(1)
        const tuples = yield* analyzedTuples.pipe(
          Effect.repeat({ until: (t) => t >= 0, schedule: Schedule.spaced("20 millis") }),
          Effect.timeout("10 seconds")
        )
        expect(tuples).toBe(0)
      })
    ).pipe(Effect.provide(Database.pglite()))
  )
})
