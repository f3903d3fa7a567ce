import { APIError, AuthenticationError, NotFoundError, RateLimitError, ValidationError } from "@umo/client"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { errorFor, parseRetryAfter } from "../src/errors.js"

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    const now = Date.parse("2026-11-22T10:00:00Z")
    expect(parseRetryAfter("3", now)).toBe(3)
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5)
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0)
    expect([parseRetryAfter(null), parseRetryAfter(""), parseRetryAfter("soon")]).toEqual([null, null, null])
  })

  it("never returns a negative wait", () => {
    fc.assert(fc.property(fc.string(), (header) => (parseRetryAfter(header) ?? 0) >= 0))
  })
})

const classFor = (status: number) => {
  if (status === 401 || status === 403) return AuthenticationError
  if (status === 404) return NotFoundError
  if (status === 429) return RateLimitError
  return [400, 413, 415, 422].includes(status) ? ValidationError : APIError
}

describe("errorFor", () => {
  it("gives every status one class, keeping status, detail and request id", () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), fc.string(), (status, detail) => {
        const error = errorFor(status, detail, "req-1", 2)
        return (
          error instanceof classFor(status) &&
          error.status === status &&
          error.detail === detail &&
          error.requestId === "req-1"
        )
      })
    )
  })
})
