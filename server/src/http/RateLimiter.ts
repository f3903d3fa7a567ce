import { SqlRateBuckets } from "@umo/plugins"
import { Clock, Config, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the bucket is full again (`RateLimit-Reset`). */
  readonly resetSeconds: number
  /** Seconds until one more request is allowed (`Retry-After`), 0 when allowed. */
  readonly retryAfterSeconds: number
}

/** Who sent a request: the SHA-256 of its bearer key, if it has one, and its network address. */
export interface Caller {
  readonly keyHash: string | undefined
  readonly address: string
}

/** What a refused request is told (`{detail}` of its 429). */
export const refusal = (decision: RateDecision) =>
  `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s`

/**
 * The current request's rate-limit token when the request middleware left it to be taken beside
 * the call (see `ample`): taking it once, the same decision every time after. `undefined` when the
 * token was taken before the call began.
 */
export const RateToken = Context.Reference<Effect.Effect<RateDecision> | undefined>("@umo/server/RateToken", {
  defaultValue: () => undefined
})

/** Keys remembered as proven; past this many, the longest unused are forgotten. */
const provenKeysKept = 100_000
/** Buckets kept before full ones are swept away, so idle callers do not accumulate. */
const bucketsKept = 50_000

/**
 * Where the token buckets live. `take` answers the emptiest of the named buckets' tokens before
 * the request, and takes one token from each when that is at least one (all or none).
 */
export interface BucketStore {
  readonly take: (
    names: ReadonlyArray<string>,
    capacity: number,
    perMs: number,
    nowMs: number
  ) => Effect.Effect<number>
}

/** Buckets in this process's memory: what one process (a PGlite store is one) needs. */
export const memoryBuckets = (): BucketStore => {
  const buckets = new Map<string, { tokens: number; at: number }>()
  let sweptAt = 0
  return {
    take: (names, capacity, perMs, now) =>
      Effect.sync(() => {
        const level = (name: string) => {
          const bucket = buckets.get(name)
          return bucket === undefined
            ? capacity
            : Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs)
        }
        const lowest = Math.min(...names.map(level))
        // A refused request takes nothing; refill is linear, so its buckets need no update.
        if (lowest >= 1) for (const name of names) buckets.set(name, { tokens: level(name) - 1, at: now })
        if (buckets.size > bucketsKept && now - sweptAt >= 1_000) {
          sweptAt = now
          for (const name of buckets.keys()) if (level(name) >= capacity) buckets.delete(name)
        }
        return lowest
      })
  }
}

/**
 * Buckets in the PostgreSQL the replicas share, so N replicas still allow one limit. When the
 * database cannot be reached, this process's own buckets decide meanwhile (and the request most
 * likely meets the outage itself next).
 */
export const sharedBuckets = Effect.gen(function* () {
  const shared = yield* SqlRateBuckets.make
  const fallback = memoryBuckets()
  return {
    take: (names, capacity, perMs, now) =>
      // Whatever goes wrong with the database (a defect too: a connection lost mid-statement in a
      // failover), the request is counted in this process's buckets rather than answered 500.
      shared
        .take(names, capacity, perMs, now)
        .pipe(Effect.catchCause(() => fallback.take(names, capacity, perMs, now)))
  } satisfies BucketStore
})

/**
 * A token bucket per caller: `perMinute` requests a minute, refilled continuously, bursts up to
 * `perMinute`, kept in `store`.
 *
 * A request counts against its key's bucket. Until the key has been seen to authenticate (in this
 * process) it also counts against its address's bucket, as does a request without a key. So one
 * key never gets more than its limit, and a flood of made-up keys from one address — each of which
 * would otherwise get a fresh bucket, and a database lookup — is held to one address's limit,
 * while the proven keys of callers sharing that address are not slowed by it. `Authentication`
 * reports which keys it accepted and refused.
 *
 * `ample` tells whether a proven key had tokens to spare when this process last took one for it:
 * then a call that only reads may start while its token is taken (`RateToken`; with buckets in
 * PostgreSQL that take is a round trip). Other processes spend the same bucket unseen here, so a
 * tenth of the limit (at least 5) must have been left, less the calls let start since; the take
 * still decides, and a refused call is dropped.
 */
export const make = (perMinute: number, store: BucketStore = memoryBuckets()) =>
  Effect.gen(function* () {
    const provenKeys = new Set<string>()
    /** For proven keys: the tokens left after this process's last take, less the calls `ample` let start since. */
    const leftAsSeen = new Map<string, number>()
    const headroom = Math.max(5, Math.ceil(perMinute / 10))
    const ratePerMs = perMinute / 60_000

    const bucketsOf = (caller: Caller) => {
      if (caller.keyHash === undefined) return [`ip:${caller.address}`]
      const key = `key:${caller.keyHash}`
      return provenKeys.has(caller.keyHash) ? [key] : [key, `ip:${caller.address}`]
    }

    /** Takes one token from each of the caller's buckets, or none when any is empty. */
    const take = (caller: Caller) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // The emptiest bucket decides, and its figures are the ones reported.
        const tokens = yield* store.take(bucketsOf(caller), perMinute, ratePerMs, now)
        const allowed = tokens >= 1
        const left = allowed ? tokens - 1 : tokens
        if (caller.keyHash !== undefined && provenKeys.has(caller.keyHash))
          leftAsSeen.set(caller.keyHash, left)
        return {
          allowed,
          limit: perMinute,
          remaining: Math.floor(left),
          resetSeconds: Math.ceil((perMinute - left) / ratePerMs / 1000),
          retryAfterSeconds: allowed ? 0 : Math.ceil((1 - left) / ratePerMs / 1000)
        } satisfies RateDecision
      })

    /** Whether the caller's key is proven and had `headroom` tokens left as last seen; if so, counts one call let start. */
    const ample = (caller: Caller): boolean => {
      if (caller.keyHash === undefined || !provenKeys.has(caller.keyHash)) return false
      const left = leftAsSeen.get(caller.keyHash)
      if (left === undefined || left < headroom) return false
      leftAsSeen.set(caller.keyHash, left - 1)
      return true
    }

    /** The key authenticated: its requests count against its own bucket only from now on. */
    const keyAccepted = (keyHash: string) =>
      Effect.sync(() => {
        provenKeys.delete(keyHash)
        provenKeys.add(keyHash)
        if (provenKeys.size > provenKeysKept) {
          const oldest = provenKeys.values().next().value as string
          provenKeys.delete(oldest)
          leftAsSeen.delete(oldest)
        }
      })

    /** The key was refused (unknown or revoked): its requests count against the address again. */
    const keyRefused = (keyHash: string) =>
      Effect.sync(() => {
        provenKeys.delete(keyHash)
        leftAsSeen.delete(keyHash)
      })

    return { take, ample, keyAccepted, keyRefused }
  })

export class RateLimiter extends Context.Service<RateLimiter, Effect.Success<ReturnType<typeof make>>>()(
  "@umo/server/RateLimiter"
) {}

export const layer = (perMinute: number) => Layer.effect(RateLimiter, make(perMinute))

/** `perMinute` per caller across every process on the PostgreSQL database the server uses. */
export const layerShared = (perMinute: number) =>
  Layer.effect(
    RateLimiter,
    Effect.flatMap(sharedBuckets, (store) => make(perMinute, store))
  )

/**
 * `UMO_RATE_LIMIT_PER_MINUTE` (default 600), with buckets in the PostgreSQL the replicas share, or
 * in memory on PGlite (one process).
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const perMinute = yield* Config.Int("UMO_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600))
    const sql = yield* SqlClient.SqlClient
    return sql.driver === "pglite" ? layer(perMinute) : layerShared(perMinute)
  })
)
