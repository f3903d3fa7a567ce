import { AccountStore, sha256Hex } from "@umo/core"
import { MemoryAccount, storeFailure } from "@umo/memory"
import { Effect, Layer, Option, Redacted } from "effect"
import { Authentication, CurrentAccount } from "../api/Authentication.js"
import { Unauthorized } from "../api/Errors.js"
import { RateLimiter } from "./RateLimiter.js"

/**
 * Resolves the bearer key: only its SHA-256 is looked up, so the comparison happens between
 * hashes inside the database index and the key itself is never stored, logged or compared.
 * Tells the rate limiter which keys it accepted and refused (see `RateLimiter`).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const accounts = yield* AccountStore
    const limiter = yield* RateLimiter
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const key = Redacted.value(credential).trim()
          if (key.length === 0) {
            return yield* new Unauthorized({
              detail: "missing API key: send Authorization: Bearer <API_KEY>"
            })
          }
          if (key.length > 512) return yield* new Unauthorized({ detail: "invalid API key" })
          const keyHash = sha256Hex(key)
          const found = yield* accounts.findByKeyHash(keyHash).pipe(Effect.catch(storeFailure))
          if (Option.isNone(found)) {
            yield* limiter.keyRefused(keyHash)
            return yield* new Unauthorized({ detail: "invalid or revoked API key" })
          }
          yield* limiter.keyAccepted(keyHash)
          return yield* httpEffect.pipe(
            Effect.provideService(CurrentAccount, found.value),
            Effect.provideService(MemoryAccount, found.value.account)
          )
        })
    })
  })
)
