import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parsePostgresUrl, primaryLocator } from "../../src/storage/PostgresHosts.js"
import { lsnBytes } from "../../src/storage/ReadReplicas.js"

describe("parsePostgresUrl", () => {
  it("reads every server of a libpq URL, with its credentials and database", () => {
    expect(
      parsePostgresUrl("postgres://umo:s%40cret@db-a:5433,db-b,[::1]:6000/memories?connect_timeout=3")
    ).toEqual({
      hosts: [
        { host: "db-a", port: 5433 },
        { host: "db-b", port: 5432 },
        { host: "::1", port: 6000 }
      ],
      username: "umo",
      password: "s@cret",
      database: "memories",
      connectTimeoutSeconds: 3,
      applicationName: undefined
    })
  })

  it("refuses what it cannot honour rather than ignoring it", () => {
    expect(() => parsePostgresUrl("mysql://db/x")).toThrow(/postgres/)
    expect(() => parsePostgresUrl("postgres://a:99999,b/x")).toThrow(/port/)
    expect(() => parsePostgresUrl("postgres://a,b/x?sslmode=require")).toThrow(/sslmode/)
    expect(() => parsePostgresUrl("postgres://a,,b/x")).toThrow(/host/)
  })

  it("gives back the servers it was given, in order (property)", () => {
    const host = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
    const port = fc.integer({ min: 1, max: 65_535 })
    fc.assert(
      fc.property(fc.array(fc.record({ host, port }), { minLength: 1, maxLength: 5 }), (servers) => {
        const url = `postgres://u@${servers.map((s) => `${s.host}:${s.port}`).join(",")}/db`
        expect(parsePostgresUrl(url).hosts).toEqual(servers)
      })
    )
  })
})

describe("lsnBytes", () => {
  it("orders WAL positions as PostgreSQL does (property)", () => {
    const position = fc.tuple(fc.nat(0xffff), fc.nat(0xffffffff))
    fc.assert(
      fc.property(position, position, ([h1, l1], [h2, l2]) => {
        const a = lsnBytes(`${h1.toString(16).toUpperCase()}/${l1.toString(16).toUpperCase()}`)
        const b = lsnBytes(`${h2.toString(16)}/${l2.toString(16)}`)
        expect(a < b).toBe(h1 < h2 || (h1 === h2 && l1 < l2))
      })
    )
  })
})

const url = process.env.UMO_TEST_DATABASE_URL
describe.skipIf(url === undefined)("primaryLocator on a real server", () => {
  it("connects each session to the server that accepts writes, passing over one that is down", async () => {
    const real = new URL(url!)
    const target = parsePostgresUrl(
      `postgres://${real.username}@127.0.0.1:1,${real.hostname}:${real.port || 5432}${real.pathname}`
    )
    const locator = primaryLocator(target)
    const layer = PgClient.layer({
      stream: locator.stream,
      username: target.username,
      database: target.database
    })
    const rows = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* Effect.all(
          [1, 2, 3].map(() => sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby`),
          {
            concurrency: "unbounded"
          }
        )
      }).pipe(Effect.provide(Layer.fresh(layer)))
    )
    expect(rows.map(([row]) => row?.standby)).toEqual([false, false, false])
    expect(locator.current).toEqual(target.hosts[1])
  })

  it("fails the connection, in time, when no server accepts writes", async () => {
    const locator = primaryLocator(parsePostgresUrl("postgres://postgres@127.0.0.1:1,127.0.0.1:2/umo"))
    const layer = PgClient.layer({ stream: locator.stream, username: "postgres", database: "umo" })
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(Effect.provide(Layer.fresh(layer)))
    )
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toMatch(/ConnectionError|accepts writes/)
  })
})
