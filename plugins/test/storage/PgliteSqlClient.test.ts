import { execFile } from "node:child_process"
import type { Worker } from "node:worker_threads"
import { it } from "@effect/vitest"
import { PgliteSqlClient } from "@umo/plugins"
import { Duration, Effect, Exit, Fiber, Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { describe, expect, vi } from "vitest"

// The threads PgliteSqlClient starts, so a test can end one the way a crash would; they are the real
// node:worker_threads Worker, only remembered.
const threads = vi.hoisted(() => [] as Array<Worker>)
vi.mock("node:worker_threads", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:worker_threads")>()
  class RememberedWorker extends original.Worker {
    constructor(...args: ConstructorParameters<typeof original.Worker>) {
      super(...args)
      threads.push(this)
    }
  }
  return { ...original, Worker: RememberedWorker }
})

/** About 0.4 to 1.5 s of work inside PostgreSQL, one statement. */
const longQuery = (sql: SqlClient.SqlClient) =>
  sql<{ total: number }>`SELECT sum(i) AS total FROM generate_series(1, 2000000) i`

const failsToConnect = (error: SqlError) => expect(error.reason._tag).toBe("ConnectionError")

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

    it.effect("carries parameters and rows of every kind across the thread", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const when = new Date("2024-02-29T12:34:56.789Z")
        const bytes = new Uint8Array([0, 1, 254, 255])
        const [row] = yield* sql<Record<string, unknown>>`
          SELECT ${when}::timestamptz AS at, ${bytes}::bytea AS bytes, ${9007199254740993n}::bigint AS big,
                 ${true}::boolean AS yes, ${null}::text AS nothing, ${2.5}::float8 AS real,
                 ${'{"a":[1,{"b":null}]}'}::jsonb AS doc, ${'{"x":"y"}'}::json AS plain,
                 ARRAY[1, 2, 3]::int[] AS ints, '[1,2.5,-3]'::vector AS embedding`
        expect(row).toEqual({
          at: when,
          bytes,
          big: 9007199254740993n,
          yes: true,
          nothing: null,
          real: 2.5,
          doc: { a: [1, { b: null }] },
          plain: { x: "y" },
          ints: [1, 2, 3],
          embedding: "[1,2.5,-3]"
        })
        expect(row!.at).toBeInstanceOf(Date)
        expect(row!.bytes).toBeInstanceOf(Uint8Array)
        const values = yield* sql`SELECT 1 AS a, 'b' AS b`.values
        expect(values).toEqual([[1, "b"]])
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

    it.effect("rolls a transaction back when one of its statements fails", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE tx_fail (id int PRIMARY KEY)`
        yield* sql`INSERT INTO tx_fail VALUES (1)`
        const failed = yield* sql
          .withTransaction(
            Effect.andThen(sql`INSERT INTO tx_fail VALUES (2)`, sql`INSERT INTO tx_fail VALUES (1)`)
          )
          .pipe(Effect.flip)
        expect(failed.reason._tag).toBe("UniqueViolation")
        // A failure swallowed inside the transaction still aborts it: COMMIT answers ROLLBACK, and
        // the client says so rather than report the lost insert as written.
        const swallowed = yield* sql
          .withTransaction(
            Effect.andThen(
              sql`INSERT INTO tx_fail VALUES (3)`,
              Effect.ignore(sql`INSERT INTO tx_fail VALUES (1)`)
            )
          )
          .pipe(Effect.flip)
        expect(swallowed.reason._tag).toBe("UnknownError")
        expect(swallowed.message).toContain("COMMIT rolled back")
        expect(yield* sql`SELECT id FROM tx_fail ORDER BY id`).toEqual([{ id: 1 }])
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
        // Statements outside any transaction, in between, must see only committed counts.
        const outside = Effect.map(sql<{ n: number }>`SELECT n FROM counter`, ([row]) => row!.n)
        const seen = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? Effect.as(increment, -1) : outside)),
          (effect) => effect,
          { concurrency: "unbounded" }
        )
        expect(yield* sql`SELECT n FROM counter`).toEqual([{ n: 25 }])
        const counts = seen.filter((n) => n >= 0)
        expect(counts.every((n) => Number.isInteger(n) && n <= 25)).toBe(true)
      })
    )

    it.effect("classifies errors as PostgreSQL reports them", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE uniq (id int PRIMARY KEY, label text NOT NULL)`
        yield* sql`INSERT INTO uniq VALUES (1, 'a')`
        const duplicate = yield* Effect.flip(sql`INSERT INTO uniq VALUES (1, 'b')`)
        expect(duplicate.reason).toMatchObject({ _tag: "UniqueViolation", constraint: "uniq_pkey" })
        expect(duplicate.message).toContain("duplicate key value violates unique constraint")
        const missing = yield* Effect.flip(sql`INSERT INTO uniq VALUES (2, NULL)`)
        expect(missing.reason._tag).toBe("ConstraintError")
        const syntax = yield* Effect.flip(sql`SELEC 1`)
        expect(syntax.reason._tag).toBe("SqlSyntaxError")
        const unknownTable = yield* Effect.flip(sql`SELECT * FROM no_such_table`)
        expect(unknownTable.reason._tag).toBe("SqlSyntaxError")
        expect(yield* sql`SELECT count(*)::int AS n FROM uniq`).toEqual([{ n: 1 }])
      })
    )
  })

  it.live("keeps the event loop turning while PGlite runs a long query", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      let ticks = 0
      yield* Effect.acquireRelease(
        Effect.sync(() => setInterval(() => ticks++, 10)),
        (timer) => Effect.sync(() => clearInterval(timer))
      )
      const [elapsed, rows] = yield* Effect.timed(longQuery(sql))
      const during = ticks
      expect(rows).toEqual([{ total: 2000001000000 }])
      expect(Duration.toMillis(elapsed)).toBeGreaterThan(300)
      // A 10 ms timer on a free event loop ticks about elapsed / 10 times; on a blocked one, never.
      expect(during).toBeGreaterThan(Duration.toMillis(elapsed) / 40)
    }).pipe(Effect.provide(PgliteSqlClient.layer()))
  )

  it.live("fails waiting and later queries when the thread dies", () =>
    Effect.gen(function* () {
      const sql = yield* PgliteSqlClient.make()
      const thread = threads.at(-1)!
      const waiting = yield* Effect.forkChild(longQuery(sql))
      yield* Effect.sleep("100 millis")
      yield* Effect.promise(() => thread.terminate())
      const pending = yield* Fiber.join(waiting).pipe(Effect.flip, Effect.timeout("10 seconds"))
      failsToConnect(pending)
      failsToConnect(yield* Effect.flip(sql`SELECT 1`).pipe(Effect.timeout("10 seconds")))
      failsToConnect(
        yield* Effect.flip(sql.withTransaction(sql`SELECT 1`)).pipe(Effect.timeout("10 seconds"))
      )
    }).pipe(Effect.provide(Reactivity.layer))
  )

  it.live("ends its thread when its scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const sql = yield* PgliteSqlClient.make().pipe(Scope.provide(scope))
      const thread = threads.at(-1)!
      expect(yield* sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
      const exited = Effect.callback<number>((resume) => {
        thread.once("exit", (code) => resume(Effect.succeed(code)))
      })
      const [code] = yield* Effect.all([exited, Scope.close(scope, Exit.void)], { concurrency: "unbounded" })
      expect(code).toBeTypeOf("number")
      failsToConnect(yield* Effect.flip(sql`SELECT 1`).pipe(Effect.timeout("10 seconds")))
    }).pipe(Effect.provide(Reactivity.layer))
  )

  it.live("holds the process open while a query waits, and not after", () =>
    Effect.gen(function* () {
      // A script that never closes its client: it must still print the answer (the thread keeps
      // the process alive while it works), then exit on its own (it does not once it is idle).
      const { code, stdout } = yield* Effect.callback<{ code: number | null; stdout: string }>((resume) => {
        const child = execFile(
          process.execPath,
          ["--import", "tsx", "plugins/test/storage/pglite-left-open.ts"],
          { timeout: 60_000 },
          (error, stdout) =>
            resume(Effect.succeed({ code: error ? (error.code as number | null) : 0, stdout }))
        )
        return Effect.sync(() => child.kill())
      })
      expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: "42" })
    })
  )
})
