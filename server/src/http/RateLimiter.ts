import { Clock, Config, Context, Effect, Layer } from "effect"

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

/** Keys remembered as proven; past this many, the longest unused are forgotten. */
const provenKeysKept = 100_000
/** Buckets kept before full ones are swept away, so idle callers do not accumulate. */
const bucketsKept = 50_000

/**
 * A token bucket per caller: `perMinute` requests a minute, refilled continuously, bursts up to
 * `perMinute`, kept in this process's memory.
 *
 * A request counts against its key's bucket. Until the key has been seen to authenticate it
 * also counts against its address's bucket, as does a request without a key. So one key never
 * gets more than its limit, and a flood of made-up keys from one address — each of which would
 * otherwise get a fresh bucket, and a database lookup — is held to one address's limit, while
 * the proven keys of callers sharing that address are not slowed by it. `Authentication` reports
 * which keys it accepted and refused.
 */
export const make = (perMinute: number) =>
  Effect.gen(function* () {
    const buckets = new Map<string, { tokens: number; at: number }>()
    const provenKeys = new Set<string>()
    const ratePerMs = perMinute / 60_000
    let sweptAt = 0

    const tokensAt = (name: string, now: number) => {
      const bucket = buckets.get(name)
      return bucket === undefined
        ? perMinute
        : Math.min(perMinute, bucket.tokens + (now - bucket.at) * ratePerMs)
    }
    const sweep = (now: number) => {
      if (buckets.size <= bucketsKept || now - sweptAt < 1_000) return
      sweptAt = now
      for (const name of buckets.keys()) if (tokensAt(name, now) >= perMinute) buckets.delete(name)
    }
    const bucketsOf = (caller: Caller) => {
      if (caller.keyHash === undefined) return [`ip:${caller.address}`]
      const key = `key:${caller.keyHash}`
      return provenKeys.has(caller.keyHash) ? [key] : [key, `ip:${caller.address}`]
    }

    /** Takes one token from each of the caller's buckets, or none when any is empty. */
    const take = (caller: Caller) =>
      Effect.map(Clock.currentTimeMillis, (now): RateDecision => {
        const names = bucketsOf(caller)
        // The emptiest bucket decides, and its figures are the ones reported.
        const tokens = Math.min(...names.map((name) => tokensAt(name, now)))
        const allowed = tokens >= 1
        // A refused request takes nothing; refill is linear, so its buckets need no update.
        if (allowed) for (const name of names) buckets.set(name, { tokens: tokensAt(name, now) - 1, at: now })
        sweep(now)
        const left = allowed ? tokens - 1 : tokens
        return {
          allowed,
          limit: perMinute,
          remaining: Math.floor(left),
          resetSeconds: Math.ceil((perMinute - left) / ratePerMs / 1000),
          retryAfterSeconds: allowed ? 0 : Math.ceil((1 - left) / ratePerMs / 1000)
        }
      })

    /** The key authenticated: its requests count against its own bucket only from now on. */
    const keyAccepted = (keyHash: string) =>
      Effect.sync(() => {
        provenKeys.delete(keyHash)
        provenKeys.add(keyHash)
        if (provenKeys.size > provenKeysKept) provenKeys.delete(provenKeys.values().next().value as string)
      })

    /** The key was refused (unknown or revoked): its requests count against the address again. */
    const keyRefused = (keyHash: string) => Effect.sync(() => void provenKeys.delete(keyHash))

    return { take, keyAccepted, keyRefused }
  })

export class RateLimiter extends Context.Service<RateLimiter, Effect.Success<ReturnType<typeof make>>>()(
  "@umo/server/RateLimiter"
) {}

export const layer = (perMinute: number) => Layer.effect(RateLimiter, make(perMinute))

/** `UMO_RATE_LIMIT_PER_MINUTE` (default 600). */
export const layerConfig = Layer.unwrap(
  Effect.map(Config.Int("UMO_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600)), layer)
)
