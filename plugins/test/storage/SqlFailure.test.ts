import { StoreError } from "@umo/core"
import { ConnectionError, SqlError, SqlSyntaxError, UnknownError } from "effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { isUnavailable } from "../../src/storage/SqlFailure.js"

/** A SqlError as the PostgreSQL client builds one from a server's error fields. */
const fromServer = (
  code: string,
  text: string,
  Reason: typeof UnknownError | typeof SqlSyntaxError = UnknownError
) =>
  new SqlError({
    reason: new Reason({
      cause: Object.assign(new Error(text), { code, severity: "FATAL" }),
      message: "PgConnection: Failed to connect",
      operation: "connect"
    })
  })

describe("isUnavailable", () => {
  it("counts a lost connection and a server stopping, starting or full as unavailable", () => {
    expect(
      isUnavailable(
        new SqlError({
          reason: new ConnectionError({
            cause: new Error("ECONNREFUSED"),
            message: "x",
            operation: "connect"
          })
        })
      )
    ).toBe(true)
    expect(isUnavailable(fromServer("57P01", "terminating connection due to administrator command"))).toBe(
      true
    )
    expect(isUnavailable(fromServer("57P03", "the database system is starting up"))).toBe(true)
    expect(isUnavailable(fromServer("53300", "sorry, too many clients already"))).toBe(true)
    expect(isUnavailable(new StoreError({ reason: "Unavailable", detail: "x" }))).toBe(true)
  })

  it("counts a failed statement as a failure, not unavailability", () => {
    expect(isUnavailable(fromServer("42601", "syntax error", SqlSyntaxError))).toBe(false)
    expect(isUnavailable(fromServer("XX000", "internal error"))).toBe(false)
    expect(isUnavailable(new StoreError({ reason: "Failed", detail: "x" }))).toBe(false)
    expect(isUnavailable(new Error("plain"))).toBe(false)
    expect(isUnavailable(undefined)).toBe(false)
  })
})
