import { AccountStore, sha256Hex } from "@umo/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { Authentication, CurrentAccount } from "../api/Authentication.js"
import { Unauthorized } from "../api/Errors.js"
import { storeFailure } from "../services/Memories.js"

/**
 * Resolves the bearer key: only its SHA-256 is looked up, so the comparison happens between
 * hashes inside the database index and the key itself is never stored, logged or compared.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const accounts = yield* AccountStore
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
          const found = yield* accounts.findByKeyHash(sha256Hex(key)).pipe(Effect.catch(storeFailure))
          if (Option.isNone(found)) return yield* new Unauthorized({ detail: "invalid or revoked API key" })
          return yield* Effect.provideService(httpEffect, CurrentAccount, found.value)
        })
    })
  })
)
