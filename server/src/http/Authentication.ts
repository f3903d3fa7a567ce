import { AccountStore, sha256Hex } from "@umo/core"
import { MemoryAccount, storeFailure, timed } from "@umo/memory"
import { Effect, Fiber, Layer, Option, Redacted } from "effect"
import { Authentication, CurrentAccount } from "../api/Authentication.js"
import { TooManyRequests, Unauthorized } from "../api/Errors.js"
import { RateLimiter, RateToken, refusal } from "./RateLimiter.js"
import { readsOnly } from "./ReadOnlyCalls.js"

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

/**
 * The API's bearer authentication: the key's account is the one every call acts for. Every call
 * looks its key up; a call that only reads, with a key accepted lately, starts meanwhile (the
 * lookup is a database round trip, a search's largest cost after its embedding), and answers only
 * once the key is found still active — a revoked key gets its 401, never the call's answer or
 * error, and its work is dropped. A call that writes waits for the lookup. A rate-limit token the
 * request middleware left to be taken beside the call (`RateToken`) is taken with the lookup, and
 * refused, answers 429 the same way (before a 401).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const resolve = yield* resolveBearerKey
    const accepted = new Map<string, CurrentAccount["Service"]>()
    /** Resolves the key, keeping it among those accepted lately (by `keyHash`, its trimmed hash) or dropping it. */
    const checked = (key: string, keyHash: string) =>
      resolve(key).pipe(
        Effect.tap((found) =>
          Effect.sync(() => {
            accepted.delete(keyHash)
            accepted.set(keyHash, found)
            if (accepted.size > acceptedKept) accepted.delete(accepted.keys().next().value!)
          })
        ),
        Effect.tapError(() => Effect.sync(() => accepted.delete(keyHash)))
      )
    return Authentication.of({
      bearer: (httpEffect, { credential, endpoint }) => {
        const key = Redacted.value(credential)
        const actingFor = (found: CurrentAccount["Service"]) =>
          httpEffect.pipe(
            Effect.provideService(CurrentAccount, found),
            Effect.provideService(MemoryAccount, found.account)
          )
        const keyHash = sha256Hex(key.trim())
        const known = readsOnly(endpoint.method, endpoint.path) ? accepted.get(keyHash) : undefined
        return Effect.gen(function* () {
          const token = yield* RateToken
          const tokenTaken =
            token === undefined
              ? Effect.void
              : Effect.flatMap(token, (decision) =>
                  decision.allowed
                    ? Effect.void
                    : Effect.fail(new TooManyRequests({ detail: refusal(decision) }))
                )
          if (known === undefined)
            return yield* Effect.andThen(tokenTaken, Effect.flatMap(checked(key, keyHash), actingFor))
          const call = yield* Effect.forkChild(actingFor(known), { startImmediately: true })
          // The checks' round trips are sent after the call has had its turn: sent first, building
          // and sending them held back the start of its own work (a search's embedding) by 0.3 ms
          // at p50 (2026-11-27, 100k memories on PostgreSQL), and the call cannot answer before
          // they come back either way.
          yield* Effect.yieldNow
          // A refused token or key fails here (the token first), and the call is stopped.
          const [rate, found] = yield* Effect.all(
            [Effect.exit(tokenTaken), Effect.exit(checked(key, keyHash))],
            {
              concurrency: "unbounded"
            }
          )
          yield* Effect.andThen(rate, found).pipe(Effect.onError(() => Fiber.interrupt(call)))
          return yield* Fiber.join(call)
        })
      }
    })
  })
)
