import { mkdirSync, mkdtempSync, rmSync, utimesSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import * as PgliteSqlClient from "../../src/storage/PgliteSqlClient.js"

const root = mkdtempSync(join(tmpdir(), "umo-lock-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Opens PGlite in `dataDir`, runs a statement, and closes it. */
const open = (dataDir: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 AS one`).pipe(
    Effect.provide(PgliteSqlClient.layer({ dataDir }))
  )

describe("the PGlite data directory lock", () => {
  it("refuses a second opening of a directory in use, saying so, and allows it once closed", async () => {
    const dataDir = join(root, "shared")
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        // The first client holds the directory while this runs.
        yield* (yield* SqlClient.SqlClient)`SELECT 1`
        return yield* Effect.exit(open(dataDir))
      }).pipe(Effect.provide(PgliteSqlClient.layer({ dataDir })))
    )
    expect(Exit.isFailure(result)).toBe(true)
    expect(String(Exit.isFailure(result) ? result.cause : "")).toContain(
      `the PGlite database in ${dataDir} is in use by another UMO process`
    )
    // Released with the first client's scope: the directory opens again.
    expect(await Effect.runPromise(open(dataDir))).toEqual([{ one: 1 }])
  }, 60_000)

  it("takes over a lock left by a process that was killed", async () => {
    const dataDir = join(root, "abandoned")
    mkdirSync(`${dataDir}.lock`, { recursive: true })
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(`${dataDir}.lock`, minuteAgo, minuteAgo)
    // A lock not taken over would fail the opening after its retries ("in use").
    expect(await Effect.runPromise(open(dataDir))).toEqual([{ one: 1 }])
  }, 60_000)
})
