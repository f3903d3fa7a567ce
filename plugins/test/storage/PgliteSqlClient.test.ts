import { it } from "@effect/vitest"
import { PgliteSqlClient } from "@umo/plugins"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"

describe("PgliteSqlClient", () => {
  it.layer(PgliteSqlClient.layer())((it) => {
    it.effect("binds parameters and returns rows, with pgvector loaded", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number; s: string; d: number }>`
          SELECT ${41}::int + 1 AS n, ${"it's"}::text AS s, ('[1,0]'::vector <=> ${"[0,1]"}::vector) AS d`
        expect(rows).toEqual([{ n: 42, s: "it's", d: 1 }])
      })
    )

    it.effect("commits a transaction and rolls one back on failure", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE tx_test (id int PRIMARY KEY)`
        yield* sql.withTransaction(sql`INSERT INTO tx_test VALUES (1)`)
        const failed = yield* sql
          .withTransaction(Effect.andThen(sql`INSERT INTO tx_test VALUES (2)`, Effect.fail("boom")))
          .pipe(Effect.flip)
        expect(failed).toBe("boom")
        expect(yield* sql`SELECT id FROM tx_test ORDER BY id`).toEqual([{ id: 1 }])
      })
    )

    it.effect("keeps other fibers out of an open transaction", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE counter (n int NOT NULL)`
        yield* sql`INSERT INTO counter VALUES (0)`
        // Each transaction reads, yields to the scheduler, then writes: without isolation the
        // fibers would interleave and lose increments.
        const increment = sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<{ n: number }>`SELECT n FROM counter`
            yield* Effect.yieldNow
            yield* sql`UPDATE counter SET n = ${row!.n + 1}`
          })
        )
        yield* Effect.forEach(Array.from({ length: 25 }), () => increment, { concurrency: "unbounded" })
        expect(yield* sql`SELECT n FROM counter`).toEqual([{ n: 25 }])
      })
    )

    it.effect("reports a unique violation as such", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE uniq (id int PRIMARY KEY)`
        yield* sql`INSERT INTO uniq VALUES (1)`
        const error = yield* Effect.flip(sql`INSERT INTO uniq VALUES (1)`)
        expect(error.reason._tag).toBe("UniqueViolation")
        const syntax = yield* Effect.flip(sql`SELEC 1`)
        expect(syntax.reason._tag).toBe("SqlSyntaxError")
      })
    )
  })
})
