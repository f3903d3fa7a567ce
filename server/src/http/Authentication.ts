import { AccountStore, sha256Hex } from "@umo/core"
import { MemoryAccount, storeFailure, timed } from "@umo/memory"
import { Effect, Layer, Option, Redacted } from "effect"
import { Authentication, CurrentAccount } from "../api/Authentication.js"
import { Unauthorized } from "../api/Errors.js"
import { RateLimiter } from "./RateLimiter.js"

/**
 * Resolves a bearer key: only its SHA-256 is looked up, so the comparison happens between hashes
 * inside the database index and the key itself is never stored, logged or compared. Tells the rate
 * limiter which keys it accepted and refused (see `RateLimiter`). The API's middleware and the MCP
 * endpoint both authenticate with it.
 */
export const resolveBearerKey = Effect.gen(function* () {
  const accounts = yield* AccountStore
  const limiter = yield* RateLimiter
  return (credential: string) =>
    Effect.gen(function* () {
      const key = credential.trim()
      if (key.length === 0) {
        return yield* new Unauthorized({ detail: "missing API key: send Authorization: Bearer <API_KEY>" })
      }
      if (key.length > 512) return yield* new Unauthorized({ detail: "invalid API key" })
      const keyHash = sha256Hex(key)
      const found = yield* accounts.findByKeyHash(keyHash).pipe(Effect.catch(storeFailure), timed("auth"))
      if (Option.isNone(found)) {
        yield* limiter.keyRefused(keyHash)
        return yield* new Unauthorized({ detail: "invalid or revoked API key" })
      }
      yield* limiter.keyAccepted(keyHash)
      return found.value
    })
})

/** The API's bearer authentication: the key's account is the one every call acts for. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const resolve = yield* resolveBearerKey
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.flatMap(resolve(Redacted.value(credential)), (found) =>
          httpEffect.pipe(
            Effect.provideService(CurrentAccount, found),
            Effect.provideService(MemoryAccount, found.account)
          )
        )
    })
  })
)
