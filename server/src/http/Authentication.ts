import { AccountStore, sha256Hex } from "@umo/core"
import { MemoryAccount, storeFailure, timed } from "@umo/memory"
import { Effect, Fiber, Layer, Option, Redacted } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
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

/** Keys accepted lately, and what they resolved to, kept (the least recently used go first). */
const acceptedKept = 10_000

/** Whether a call only reads: every GET, and search. */
const onlyReads = (endpoint: HttpApiEndpoint.Top) =>
  endpoint.method === "GET" || endpoint.identifier === "query" || endpoint.identifier === "search"

/**
 * The API's bearer authentication: the key's account is the one every call acts for. Every call
 * looks its key up; a call that only reads, with a key accepted lately, starts meanwhile (the
 * lookup is a database round trip, a search's largest cost after its embedding), and answers only
 * once the key is found still active — a revoked key gets its 401, never the call's answer or
 * error, and its work is dropped. A call that writes waits for the lookup.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const resolve = yield* resolveBearerKey
    const accepted = new Map<string, CurrentAccount["Service"]>()
    const checked = (key: string) => {
      const keyHash = sha256Hex(key.trim())
      return resolve(key).pipe(
        Effect.tap((found) =>
          Effect.sync(() => {
            accepted.delete(keyHash)
            accepted.set(keyHash, found)
            if (accepted.size > acceptedKept) accepted.delete(accepted.keys().next().value!)
          })
        ),
        Effect.tapError(() => Effect.sync(() => accepted.delete(keyHash)))
      )
    }
    return Authentication.of({
      bearer: (httpEffect, { credential, endpoint }) => {
        const key = Redacted.value(credential)
        const actingFor = (found: CurrentAccount["Service"]) =>
          httpEffect.pipe(
            Effect.provideService(CurrentAccount, found),
            Effect.provideService(MemoryAccount, found.account)
          )
        const known = onlyReads(endpoint) ? accepted.get(sha256Hex(key.trim())) : undefined
        if (known === undefined) return Effect.flatMap(checked(key), actingFor)
        return Effect.gen(function* () {
          const call = yield* Effect.forkChild(actingFor(known), { startImmediately: true })
          // A refused key fails here, and the call is stopped.
          yield* checked(key).pipe(Effect.onError(() => Fiber.interrupt(call)))
          return yield* Fiber.join(call)
        })
      }
    })
  })
)
